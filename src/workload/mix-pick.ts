/**
 * Which class of a scenario's `mix` request number `index` belongs to. A pure function of (scenario seed,
 * scenario name, shares, index), so a request picks the same class whatever order, process or shard it is
 * built in, and the same profile picks the same classes in every run.
 *
 * The picks follow a golden-ratio (Weyl) sequence from a seeded start rather than independent draws: the
 * classes interleave evenly, so over any run of N consecutive indices (and over any shard's every N-th
 * index) each class gets its share within a couple of requests, where independent draws would wander
 * by about the square root of N.
 */
import { createRng } from '../util/rng.js';
import { streamSeed } from './request-seed.js';

/** 1/phi: the step of the sequence; its multiples modulo 1 spread most evenly over [0, 1). */
const GOLDEN_STEP = (Math.sqrt(5) - 1) / 2;

export interface MixPicker {
  /** The position in the mix (0-based) of the class of request `index`. */
  pick(index: number): number;
}

/** `shares` are the classes' normalized weights (summing to 1), in the mix's order. */
export function createMixPicker(seed: number, scenarioName: string, shares: readonly number[]): MixPicker {
  const start = createRng(streamSeed(seed, scenarioName, 'mix')).next();
  const bounds: number[] = [];
  let sum = 0;
  for (const share of shares) {
    sum += share;
    bounds.push(sum);
  }
  const last = shares.length - 1;
  return {
    pick(index) {
      const u = (start + index * GOLDEN_STEP) % 1;
      for (let i = 0; i < last; i++) if (u < (bounds[i] as number)) return i;
      return last;
    },
  };
}
