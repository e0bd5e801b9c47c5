/**
 * Which dataset entry request `index` sends, seeded by the scenario so every run (and every shard or
 * worker, which build requests by index) sends the same sequence:
 * - cycle: one seeded shuffle of the entries, repeated (what datasets always did);
 * - without_replacement: the same shuffle, each entry once; past its end the order repeats (the caller
 *   warns, or refuses a `requests` count it cannot serve);
 * - with_replacement: an independent seeded draw per request.
 */
import type { DatasetSpec } from '../../profile/resolved-profile.js';
import type { Rng } from '../../util/rng.js';
import { createRng } from '../../util/rng.js';
import { requestRng, streamSeed } from '../request-seed.js';

/** Entry position (0..size-1) of request `index`. */
export type DatasetSampler = (index: number) => number;

export function createSampler(
  sample: DatasetSpec['sample'],
  size: number,
  seed: number,
  scenarioName: string,
): DatasetSampler {
  if (sample === 'with_replacement') {
    const base = streamSeed(seed, scenarioName, 'dataset-sample');
    return (index) => requestRng(base, index).int(0, size - 1);
  }
  // The stream name datasets were always shuffled with: a profile without `sample` sends what it sent before.
  const order = shuffledOrder(size, createRng(streamSeed(seed, scenarioName, 'dataset-order')));
  return (index) => order[index % size]!;
}

/** Fisher-Yates with a seeded Rng. */
export function shuffledOrder(length: number, rng: Rng): number[] {
  const order = Array.from({ length }, (_, i) => i);
  for (let i = length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
