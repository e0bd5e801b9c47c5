/**
 * Whether a profile's workload labels its requests (RequestPlan.labels): `prefix` from prompt.prefixes,
 * `turn` from session, `tool_round` from tool_loop; and the request fields each of its groups sends (a
 * scenario's, or each mix class's), for whether answers are checked. Known from the profile alone, before
 * anything is built, so requests.csv can be opened with its `labels` and `checks_failed` columns
 * (report/requests-csv.ts) before the first request.
 */
import type { ResolvedProfile, ResolvedScenario } from '../profile/resolved-profile.js';

/** True when some request of `scenario` carries labels (a mix class's own prefixes included). */
export function scenarioSetsLabels(scenario: ResolvedScenario): boolean {
  return (
    scenario.prompt.prefixes != null ||
    scenario.session != null ||
    scenario.toolLoop != null ||
    (scenario.mix ?? []).some((mixClass) => mixClass.prompt.prefixes != null)
  );
}

/** True when some request of the profile carries labels. */
export function profileSetsLabels(profile: ResolvedProfile): boolean {
  return profile.scenarios.some(scenarioSetsLabels);
}

/**
 * The request fields (request_extra over request) the groups of `scenario` send: the scenario's, or with a
 * mix each class's (its fields merged over the scenario's), since every request of a mix is some class's.
 */
export function scenarioRequestFields(scenario: ResolvedScenario): Readonly<Record<string, unknown>>[] {
  const classes = scenario.mix ?? [];
  return classes.length === 0
    ? [{ ...scenario.request, ...scenario.requestExtra }]
    : classes.map((mixClass) => ({ ...mixClass.request, ...mixClass.requestExtra }));
}
