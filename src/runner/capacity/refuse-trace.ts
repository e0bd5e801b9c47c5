/**
 * `capacity` searches the load by changing a scenario's rate or streams; a trace replay's load is its
 * file's timestamps (time_scale fixed in the profile), so there is nothing to search on.
 */
import { InferbenchError } from '../../errors.js';
import type { ResolvedScenario } from '../../profile/resolved-profile.js';

/** Throws BAD_PROFILE for the first scenario that replays a trace. */
export function refuseTraceReplay(scenarios: readonly ResolvedScenario[]): void {
  const replay = scenarios.find((scenario) => scenario.load.mode === 'rate' && scenario.load.trace !== undefined);
  if (replay === undefined) return;
  throw new InferbenchError('BAD_PROFILE', `capacity cannot search scenario ${replay.name}: it replays a trace`, {
    hint: "a trace sets its own arrivals: run it at several load.time_scale values with `inferbench run`, or search a mode: rate scenario with the trace's lengths",
  });
}
