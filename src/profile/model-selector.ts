/**
 * A scenario's model selector (`all`, `{ capability: ... }`, `{ endpoints_of: ORG }`, from `models:`,
 * profile/sections/models.ts) once resolved: how plans and errors describe it, and the profile in which
 * each selector is replaced by the target's model ids (runner/model-selectors.ts). Apart from the section
 * so that the runner (and each worker thread) uses it without loading the profile's schema.
 */
import { deepFreeze } from './deep-freeze.js';
import { expandGroups } from './groups.js';
import type { ModelSelector, ResolvedProfile } from './resolved-profile.js';

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
