/**
 * `models:`: a list of model ids, or a selector the target answers when the run starts: `all`
 * (GET /v1/models), `{ capability: reasoning }` (the public catalog: every model with all the named
 * capabilities) or `{ endpoints_of: ORG }` (the management API: the org's dedicated endpoints). A misspelt
 * capability names the closest one. A selector resolves into the scenario's `modelSelector`, is described in
 * plans and errors, and is replaced by the target's model ids once the run asked the target
 * (runner/model-selectors.ts). Until then a selector scenario has no models and its groups the model "*";
 * after, each selected model is its group exactly as a listed id would be.
 */
import { z } from 'zod';
import { PUBLIC_MODEL_CAPABILITIES, type PublicModelCapability } from '../../protocol/models.js';
import { deepFreeze } from '../deep-freeze.js';
import { expandGroups } from '../groups.js';
import { editDistance } from '../key-suggestions.js';
import type { ModelSelector, ResolvedProfile } from '../resolved-profile.js';

export const MODELS_MESSAGE =
  'expected a list of model ids, "all", { capability: NAME | [NAMES] } or { endpoints_of: ORG }';

/** The error for a capability the spec does not list, with the closest one when it is close. */
export function unknownCapabilityMessage(value: unknown): string {
  if (value === undefined) return 'required (a capability or a list of capabilities)';
  const text = typeof value === 'string' ? value : String(JSON.stringify(value));
  const lower = text.toLowerCase();
  const best = [...PUBLIC_MODEL_CAPABILITIES].sort((a, b) => editDistance(lower, a) - editDistance(lower, b))[0]!;
  const close = editDistance(lower, best) <= Math.max(2, Math.floor(best.length / 3));
  return `"${text}" is not a capability of the public catalog${close ? ` (did you mean "${best}"?)` : ''}; expected one of ${PUBLIC_MODEL_CAPABILITIES.join(', ')}`;
}

const CAPABILITY_NAMES: ReadonlySet<string> = new Set(PUBLIC_MODEL_CAPABILITIES);

/**
 * A capability name. A refined string rather than an enum: a list given where one name goes fails the
 * string check, not the names, so a union of one name and a list reports the branch the user meant.
 */
const capability = z
  .string()
  .refine((name) => CAPABILITY_NAMES.has(name), { error: (issue) => unknownCapabilityMessage(issue.input) })
  .meta({ enum: [...PUBLIC_MODEL_CAPABILITIES] });

/** One object with either key (not two objects: a misspelt key then gets a "did you mean"). */
const selector = z
  .strictObject({
    capability: z
      .union([capability, z.array(capability).min(1)], { error: 'expected a capability or a list of capabilities' })
      .optional()
      .meta({
        description: `Every model of the target's public catalog (GET /public/v1/models, no key) with all of these capabilities true: ${PUBLIC_MODEL_CAPABILITIES.join(', ')}.`,
      }),
    endpoints_of: z
      .string()
      .regex(/^[^/\s?#]+$/, { error: 'expected an organization name (no "/", "?", "#" or spaces)' })
      .optional()
      .meta({
        description:
          "The organization's dedicated endpoints (GET /management/v1/orgs/ORG/endpoints with the management key of target.management_key_env).",
      }),
  })
  .refine((given) => (given.capability === undefined) !== (given.endpoints_of === undefined), {
    error: 'expected one of { capability: NAME | [NAMES] } or { endpoints_of: ORG }',
  })
  .meta({ description: '{ capability: NAME | [NAMES] } or { endpoints_of: ORG } (one of the two).' });

export const modelsSchema = z
  .union(
    [
      z.array(z.string().min(1)),
      // A refined string, not a literal: an object or a list fails it by type, so its own branch reports.
      z
        .string()
        .refine((text) => text === 'all', { error: MODELS_MESSAGE })
        .meta({ const: 'all', description: 'Every model of GET /v1/models.' }),
      selector,
    ],
    { error: MODELS_MESSAGE },
  )
  .meta({
    id: 'models',
    description:
      "One group per model x tier: a list of ids, or all | { capability } | { endpoints_of } resolved from the target when the run starts; omitted: the target's first model.",
  });

export type ModelsInput = z.infer<typeof modelsSchema>;

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
