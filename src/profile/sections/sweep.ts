/**
 * `load: { mode: sweep, steps: N }`: a scenario expanded into the phases of a sweep, each a scenario of its
 * own (so each has its own groups, numbers and rows): `<name>.sync` (one request at a time), then
 * `<name>.throughput` (as fast as the server takes: a closed loop at max_concurrency), then
 * `<name>.rate-1` ... `<name>.rate-N`, open loops at N rates evenly spaced strictly between the two
 * measured rates. Those rates exist only once the first two phases ran: the runner sets them
 * (runner/sweep-rates.ts); here they are 0 with a note of where they come from.
 */
import type { ResolvedScenario } from '../resolved-profile.js';

/** Default ceiling of a throughput phase (and of `mode: throughput`). */
export const THROUGHPUT_CONCURRENCY = 256;

/** The phases of a sweep scenario (the scenario itself when it is not one). */
export function sweepPhases(scenario: ResolvedScenario, steps: number | null): ResolvedScenario[] {
  if (steps === null) return [scenario];
  const ceiling = scenario.load.mode === 'rate' ? scenario.load.maxConcurrency : THROUGHPUT_CONCURRENCY;
  const rate = {
    mode: 'rate' as const,
    rate: 0,
    arrival: scenario.load.mode === 'rate' ? scenario.load.arrival : ('poisson' as const),
    burstiness: scenario.load.mode === 'rate' ? scenario.load.burstiness : 1,
    maxConcurrency: ceiling,
    stages: null,
  };
  return [
    { ...scenario, name: `${scenario.name}.sync`, load: { mode: 'concurrency', concurrency: 1, stages: null } },
    {
      ...scenario,
      name: `${scenario.name}.throughput`,
      load: { mode: 'concurrency', concurrency: ceiling, stages: null },
    },
    ...Array.from({ length: steps }, (_, i) => ({
      ...scenario,
      name: `${scenario.name}.rate-${i + 1}`,
      load: rate,
      sweep: { source: scenario.name, index: i + 1, steps },
    })),
  ];
}
