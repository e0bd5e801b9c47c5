/**
 * The rate of a sweep's rate phase (profile/sections/sweep.ts), set as the phase starts from what the sweep
 * measured so far for the same model, tier and effort: `<source>.sync` (one request at a time) and
 * `<source>.throughput` (as fast as the server takes), both completed requests per second. Phase i of N
 * runs at sync + (throughput - sync) x i / (N + 1): evenly spaced, strictly between the two. When the
 * first two phases measured nothing (every request failed), there is no rate to sweep: null.
 */
import type { LiveGroups } from '../aggregate/early-stop.js';
import type { ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';

export interface SweepRate {
  readonly rate: number;
  readonly syncPerS: number;
  readonly throughputPerS: number;
}

/** Lowest rate a phase is sent at: a sweep of a server that did nothing still sends something. */
const MIN_RATE = 0.1;

/** `groups`: every group of the run, as the collector indexes them. */
export function sweepRate(
  groups: readonly ResolvedGroup[],
  scenario: ResolvedScenario,
  group: ResolvedGroup,
  live: LiveGroups,
): SweepRate | null {
  const sweep = scenario.sweep;
  if (sweep === undefined) return null;
  const measured = (phase: string): number => {
    const source = groups.find(
      (g) =>
        g.scenario === `${sweep.source}.${phase}` &&
        g.model === group.model &&
        g.tier === group.tier &&
        (g.reasoningEffort ?? null) === (group.reasoningEffort ?? null),
    );
    return source === undefined ? 0 : (live(source.index)?.rates().throughput.requests_per_s ?? 0);
  };
  const syncPerS = measured('sync');
  const throughputPerS = measured('throughput');
  if (syncPerS <= 0 && throughputPerS <= 0) return null;
  const low = Math.min(syncPerS, throughputPerS);
  const high = Math.max(syncPerS, throughputPerS);
  const rate = Math.max(MIN_RATE, low + ((high - low) * sweep.index) / (sweep.steps + 1));
  return { rate: Math.round(rate * 1000) / 1000, syncPerS, throughputPerS };
}
