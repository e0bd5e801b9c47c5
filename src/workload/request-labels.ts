/**
 * Whether a profile's workload labels its requests (RequestPlan.labels): `prefix` from prompt.prefixes,
 * `turn` from session, `tool_round` from tool_loop. Known from the profile alone, before anything is built,
 * so requests.csv can be opened with its `labels` column (report/requests-csv.ts) before the first request.
 */
import type { ResolvedProfile, ResolvedScenario } from '../profile/resolved-profile.js';

/** True when some request of `scenario` carries labels. */
export function scenarioSetsLabels(scenario: ResolvedScenario): boolean {
  return scenario.prompt.prefixes != null || scenario.session != null || scenario.toolLoop != null;
}

/** True when some request of the profile carries labels. */
export function profileSetsLabels(profile: ResolvedProfile): boolean {
  return profile.scenarios.some(scenarioSetsLabels);
}
