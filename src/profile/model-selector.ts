/**
 * `models:` selectors (`all`, `{ capability }`, `{ endpoints_of }`): resolved into the scenario's
 * `modelSelector`, described in plans and errors, and replaced by the target's model ids once the run asked
 * the target (runner/model-selectors.ts). Until then a selector scenario has no models and its groups the
 * model "*"; after, each selected model is its group exactly as a listed id would be.
 */
import type { PublicModelCapability } from '../protocol/models.js';
import type { ModelsInput } from './sections/models.js';
import { deepFreeze } from './deep-freeze.js';
import { expandGroups } from './groups.js';
import type { ModelSelector, ResolvedProfile } from './resolved-profile.js';

/** A scenario's `models` and, for a selector, its `modelSelector` (absent for a list or nothing). */
export function resolveModels(models: ModelsInput | undefined): { models: string[]; modelSelector?: ModelSelector } {
  if (models === undefined) return { models: [] };
  if (Array.isArray(models)) return { models: [...models] };
  if (models === 'all') return { models: [], modelSelector: { kind: 'all' } };
  if (models.capability !== undefined) {
    const list = Array.isArray(models.capability) ? models.capability : [models.capability];
    const capabilities = [...new Set(list)] as PublicModelCapability[];
    return { models: [], modelSelector: { kind: 'capability', capabilities } };
  }
  return { models: [], modelSelector: { kind: 'endpoints_of', org: models.endpoints_of as string } };
}

/** The selector as a profile writes it: `all`, `{ capability: [reasoning, vision] }`, `{ endpoints_of: acme }`. */
export function formatModelSelector(selector: ModelSelector): string {
  switch (selector.kind) {
    case 'all':
      return 'all';
    case 'capability':
      return `{ capability: ${selector.capabilities.length === 1 ? selector.capabilities[0] : `[${selector.capabilities.join(', ')}]`} }`;
    case 'endpoints_of':
      return `{ endpoints_of: ${selector.org} }`;
  }
}

/** Where the selector's models come from, for plans and errors. */
export function modelSelectorSource(selector: ModelSelector): string {
  switch (selector.kind) {
    case 'all':
      return 'GET /v1/models';
    case 'capability':
      return 'the public catalog, GET /public/v1/models';
    case 'endpoints_of':
      return `the management API, GET /management/v1/orgs/${selector.org}/endpoints`;
  }
}

/** True when some scenario's models are a selector not yet resolved. */
export function hasUnresolvedSelector(profile: ResolvedProfile): boolean {
  return profile.scenarios.some((scenario) => scenario.modelSelector !== undefined && scenario.models.length === 0);
}

/**
 * A new frozen profile in which each selector scenario runs `modelsOf(selector)` (sorted by id, so every
 * shard of a run makes the same groups) and the groups are expanded again. The input is not changed.
 */
export function withSelectedModels(
  profile: ResolvedProfile,
  modelsOf: (selector: ModelSelector) => readonly string[],
): ResolvedProfile {
  const scenarios = profile.scenarios.map((scenario) =>
    scenario.modelSelector === undefined
      ? scenario
      : { ...scenario, models: [...new Set(modelsOf(scenario.modelSelector))].sort() },
  );
  return deepFreeze({ ...profile, scenarios, groups: expandGroups(scenarios) });
}
