/**
 * Per-request random streams that depend only on (seed, labels, request index), so request i gets the
 * same prompt whatever order or process it is built in (shards, retries, reruns).
 */
import { createRng, hashString } from '../util/rng.js';
import type { Rng } from '../util/rng.js';

/** Seed material for one stream family, e.g. (scenario seed, "steady", "lengths"). */
export function streamSeed(seed: number, ...labels: readonly string[]): number {
  return hashString(`${seed >>> 0}\u0000${labels.join('\u0000')}`);
}

/** The Rng of request `index` in the stream family `base`. */
export function requestRng(base: number, index: number): Rng {
  return createRng((base ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
}
