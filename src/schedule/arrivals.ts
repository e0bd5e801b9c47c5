/**
 * Open-loop arrival times: offsets (ms from the schedule's start) of a constant, Poisson or gamma
 * process, drawn from a seeded Rng so that the same profile gives the same arrivals. Gaps are drawn for a
 * unit-rate process and mapped to time through the rate: divided by a fixed rate, or through the inverse
 * of the cumulative rate when stages make the rate vary (time-rescaling), so a ramp changes the rate
 * continuously instead of once per stage. The first arrival is at offset 0.
 */
import type { LoadSpec } from '../profile/resolved-profile.js';
import { exponential, gamma } from '../util/distributions.js';
import type { Rng } from '../util/rng.js';
import { createStageProfile } from './stage-profile.js';

export type ArrivalKind = 'constant' | 'poisson' | 'gamma';

/** Draws the next gap of a process with mean gap 1 (unit rate). */
export type UnitGapSampler = () => number;

type GapSamplerFactory = (rng: Rng, burstiness: number) => UnitGapSampler;

/** Unit-rate gap samplers per arrival kind; gamma keeps mean 1 with shape = burstiness, scale = 1/shape. */
export const ARRIVAL_GAPS = {
  constant: () => () => 1,
  poisson: (rng) => () => exponential(rng, 1),
  // A non-positive shape has no gamma distribution (the profile rejects it); fall back to Poisson.
  gamma: (rng, burstiness) =>
    burstiness > 0 ? () => gamma(rng, burstiness, 1 / burstiness) : () => exponential(rng, 1),
} as const satisfies Record<ArrivalKind, GapSamplerFactory>;

/** Successive arrival offsets; `next()` returns Infinity once the stages are over. */
export interface ArrivalProcess {
  next(): number;
}

type RateLoad = Extract<LoadSpec, { mode: 'rate' }>;

export function createArrivalProcess(load: RateLoad, rng: Rng): ArrivalProcess {
  const gap = ARRIVAL_GAPS[load.arrival](rng, load.burstiness);
  let cumulative = 0;
  let first = true;
  const advance = (): number => {
    if (first) first = false;
    else cumulative += gap();
    return cumulative;
  };
  if (load.stages && load.stages.length > 0) {
    const profile = createStageProfile(load.stages);
    return { next: () => profile.timeOfCumulative(advance()) };
  }
  if (!(load.rate > 0)) return { next: () => Number.POSITIVE_INFINITY };
  const msPerArrival = 1000 / load.rate;
  return { next: () => advance() * msPerArrival };
}

/** The first arrival offsets (ms) below `horizonMs` and at most `maxCount` of them: for tests and `validate`. */
export function arrivalOffsetsMs(
  load: RateLoad,
  rng: Rng,
  horizonMs: number,
  maxCount = Number.POSITIVE_INFINITY,
): number[] {
  const arrivals = createArrivalProcess(load, rng);
  const offsets: number[] = [];
  while (offsets.length < maxCount) {
    const offset = arrivals.next();
    if (!(offset < horizonMs)) break;
    offsets.push(offset);
  }
  return offsets;
}
