/**
 * Seeded traffic for the capacity statistics tests: blocks of requests whose exceedances are independent
 * (binomial) or clustered in time (beta-binomial: each block draws its own exceedance probability around
 * the mean, so a block's requests are correlated with intra-block correlation rho and the design effect of
 * a block of n is 1 + (n - 1) rho).
 */
import {
  ExceedanceSprt,
  type SprtDecision,
  type SprtOptions,
} from '../../../../src/aggregate/capacity/exceedance-sprt.js';
import { gamma } from '../../../../src/util/distributions.js';
import type { Rng } from '../../../../src/util/rng.js';

export function binomial(rng: Rng, n: number, p: number): number {
  let count = 0;
  for (let i = 0; i < n; i++) if (rng.next() < p) count++;
  return count;
}

/** Beta(mean, rho) with rho = 1 / (a + b + 1): the intra-block correlation of a beta-binomial. */
export function betaDraw(rng: Rng, mean: number, rho: number): number {
  const sum = (1 - rho) / rho;
  const x = gamma(rng, mean * sum, 1);
  const y = gamma(rng, (1 - mean) * sum, 1);
  return x / (x + y);
}

/** One block of n requests with mean exceedance p; rho = 0 for independent requests. */
export function block(rng: Rng, n: number, p: number, rho = 0): { exceeded: number; total: number } {
  const probability = rho > 0 ? betaDraw(rng, p, rho) : p;
  return { exceeded: binomial(rng, n, probability), total: n };
}

export interface SprtRun {
  readonly decision: SprtDecision;
  readonly requests: number;
  readonly test: ExceedanceSprt;
}

/** Feeds blocks of `blockSize` until a decision or `maxRequests` (then undecided). */
export function runSprt(
  rng: Rng,
  options: SprtOptions,
  p: number,
  { blockSize = 20, rho = 0, maxRequests = 20_000 } = {},
): SprtRun {
  const test = new ExceedanceSprt(options);
  while (test.decision === 'undecided' && test.requests < maxRequests) {
    const { exceeded, total } = block(rng, blockSize, p, rho);
    test.addBlock(exceeded, total);
  }
  return { decision: test.decision, requests: test.requests, test };
}

/** Fraction of `runs` seeded simulations that end with `decision`. */
export function rateOf(
  decision: SprtDecision,
  runs: number,
  seed: (i: number) => Rng,
  options: SprtOptions,
  p: number,
  traffic: Parameters<typeof runSprt>[3] = {},
): number {
  let count = 0;
  for (let i = 0; i < runs; i++) if (runSprt(seed(i), options, p, traffic).decision === decision) count++;
  return count / runs;
}
