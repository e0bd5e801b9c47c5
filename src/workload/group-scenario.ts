/**
 * The scenario as one group sends it: with a mix class, the class's prompt, request, request_extra and
 * session (its later user turns default to the class's input_tokens)
 * (already merged over the scenario's when the profile was resolved); with a reasoning effort, the
 * request's `reasoning_effort`. Computed once when the group's workload is built, never per request.
 */
import type { ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';

export function groupScenario(scenario: ResolvedScenario, group: ResolvedGroup): ResolvedScenario {
  const mixClass = group.mixClass ?? null;
  const effort = group.reasoningEffort ?? null;
  if (mixClass === null && effort === null) return scenario;
  const spec = mixClass === null ? undefined : scenario.mix?.find((c) => c.name === mixClass);
  const base = spec
    ? {
        ...scenario,
        prompt: spec.prompt,
        request: spec.request,
        requestExtra: spec.requestExtra,
        ...(spec.session ? { session: spec.session } : {}),
      }
    : scenario;
  return effort === null ? base : { ...base, request: { ...base.request, reasoning_effort: effort } };
}
