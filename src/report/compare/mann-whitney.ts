/**
 * Mann-Whitney U test on weighted samples (value, count), so the same code runs on raw per-request
 * values (count 1 each) and on HdrHistogram buckets. Normal approximation with tie and continuity
 * correction: fine for the sample sizes of a benchmark (dozens and up); below 2 samples a side there is
 * no test (p = 1).
 */
import type { WeightedValue } from '../html/histogram-series.js';

export interface MannWhitneyResult {
  /** U of the first sample (baseline). */
  readonly u: number;
  readonly z: number;
  /** Two-sided p-value. */
  readonly p: number;
  /** P(candidate > baseline) + P(tie)/2: 0.5 = no shift, above 0.5 = candidate larger. */
  readonly probabilityCandidateLarger: number;
  readonly n1: number;
  readonly n2: number;
}

/** Weighted values from plain numbers. */
export function toWeighted(values: readonly number[]): WeightedValue[] {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].map(([value, count]) => ({ value, count }));
}

/** Tests whether baseline and candidate come from the same distribution (two-sided). */
export function mannWhitneyU(
  baseline: readonly WeightedValue[],
  candidate: readonly WeightedValue[],
): MannWhitneyResult {
  const merged = new Map<number, { a: number; b: number }>();
  let n1 = 0;
  let n2 = 0;
  for (const { value, count } of baseline) {
    const e = merged.get(value) ?? { a: 0, b: 0 };
    e.a += count;
    merged.set(value, e);
    n1 += count;
  }
  for (const { value, count } of candidate) {
    const e = merged.get(value) ?? { a: 0, b: 0 };
    e.b += count;
    merged.set(value, e);
    n2 += count;
  }
  if (n1 < 2 || n2 < 2) return { u: Number.NaN, z: 0, p: 1, probabilityCandidateLarger: 0.5, n1, n2 };
  const values = [...merged.keys()].sort((x, y) => x - y);
  let rankSum1 = 0;
  let below = 0;
  let tieTerm = 0;
  for (const value of values) {
    const { a, b } = merged.get(value) as { a: number; b: number };
    const t = a + b;
    const averageRank = below + (t + 1) / 2;
    rankSum1 += a * averageRank;
    below += t;
    if (t > 1) tieTerm += t * t * t - t;
  }
  const n = n1 + n2;
  const u1 = rankSum1 - (n1 * (n1 + 1)) / 2;
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (variance <= 0) return { u: u1, z: 0, p: 1, probabilityCandidateLarger: 0.5, n1, n2 };
  const diff = u1 - mean;
  const corrected = Math.abs(diff) <= 0.5 ? 0 : diff - Math.sign(diff) * 0.5;
  const z = corrected / Math.sqrt(variance);
  const p = Math.min(1, 2 * (1 - standardNormalCdf(Math.abs(z))));
  return { u: u1, z, p, probabilityCandidateLarger: 1 - u1 / (n1 * n2), n1, n2 };
}

/** Two-proportion z-test (pooled), two-sided: for error rates. */
export function twoProportionTest(
  failures1: number,
  total1: number,
  failures2: number,
  total2: number,
): { z: number; p: number } {
  if (total1 === 0 || total2 === 0) return { z: 0, p: 1 };
  const pooled = (failures1 + failures2) / (total1 + total2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / total1 + 1 / total2));
  if (se === 0) return { z: 0, p: 1 };
  const z = (failures2 / total2 - failures1 / total1) / se;
  return { z, p: Math.min(1, 2 * (1 - standardNormalCdf(Math.abs(z)))) };
}

/** Φ(x) via erf (W. J. Cody's rational approximation is overkill here; A&S 7.1.26 gives 1.5e-7). */
export function standardNormalCdf(x: number): number {
  return 0.5 * (1 + erf(x / Math.SQRT2));
}

function erf(x: number): number {
  if (x === 0) return 0;
  const sign = x < 0 ? -1 : 1;
  const ax = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * ax);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-ax * ax);
  return sign * y;
}
