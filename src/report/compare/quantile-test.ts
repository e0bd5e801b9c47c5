/**
 * A significance test for one percentile (Mood's median test generalised to any quantile): take the
 * pooled sample's p-quantile q, count how many values of each run exceed q, and test the 2x2 table
 * (Fisher's exact test for small samples, the two-proportion z-test for large ones). Unlike
 * Mann-Whitney, which asks whether the whole distribution shifted, this asks about the tail the user
 * set a tolerance on, so a p99 jitter is not made "significant" by a shift of the median and vice versa.
 * A sample too small to resolve the quantile (fewer than MIN_EXCEEDANCES pooled values above it) is
 * tested at the most extreme quantile it can resolve (p99 of 400 requests is tested at p95): the test
 * then says whether the upper tail moved, which is what a p99 change in such a small run can show.
 */
import type { WeightedValue } from '../html/histogram-series.js';
import { twoProportionTest } from './mann-whitney.js';

export interface QuantileTestResult {
  /** Two-sided p-value. */
  readonly p: number;
  /** The pooled quantile the counts were taken at. */
  readonly threshold: number;
  /** The percentile actually tested (below the requested one when the sample is small). */
  readonly testedPercentile: number;
  readonly baselineAbove: number;
  readonly candidateAbove: number;
  readonly n1: number;
  readonly n2: number;
}

/** Pooled values that must lie above the tested quantile for the test to have any power. */
export const MIN_EXCEEDANCES = 20;

/** Largest pooled sample for which Fisher's exact test is used. */
const FISHER_MAX_N = 20_000;

/** Tests whether baseline and candidate differ at quantile `percentile` (0..100). */
export function quantileTest(
  baseline: readonly WeightedValue[],
  candidate: readonly WeightedValue[],
  percentile: number,
): QuantileTestResult {
  const n1 = total(baseline);
  const n2 = total(candidate);
  const pooled = [...baseline, ...candidate].sort((a, b) => a.value - b.value);
  const n = n1 + n2;
  if (n1 < 2 || n2 < 2)
    return { p: 1, threshold: Number.NaN, testedPercentile: percentile, baselineAbove: 0, candidateAbove: 0, n1, n2 };
  const testedPercentile = Math.max(Math.min(50, percentile), Math.min(percentile, 100 * (1 - MIN_EXCEEDANCES / n)));
  const rank = Math.max(1, Math.ceil((testedPercentile / 100) * n));
  let seen = 0;
  let threshold = pooled[pooled.length - 1]?.value ?? 0;
  for (const { value, count } of pooled) {
    seen += count;
    if (seen >= rank) {
      threshold = value;
      break;
    }
  }
  const baselineAbove = above(baseline, threshold);
  const candidateAbove = above(candidate, threshold);
  const p =
    n <= FISHER_MAX_N
      ? fisherExact(baselineAbove, n1 - baselineAbove, candidateAbove, n2 - candidateAbove)
      : twoProportionTest(baselineAbove, n1, candidateAbove, n2).p;
  return { p, threshold, testedPercentile, baselineAbove, candidateAbove, n1, n2 };
}

function total(values: readonly WeightedValue[]): number {
  let sum = 0;
  for (const v of values) sum += v.count;
  return sum;
}

function above(values: readonly WeightedValue[], threshold: number): number {
  let sum = 0;
  for (const v of values) if (v.value > threshold) sum += v.count;
  return sum;
}

/** Two-sided Fisher's exact test of the table [[a, b], [c, d]]: sum of tables no more likely than the observed one. */
export function fisherExact(a: number, b: number, c: number, d: number): number {
  const row1 = a + b;
  const col1 = a + c;
  const n = a + b + c + d;
  const logP = (x: number): number => logChoose(col1, x) + logChoose(n - col1, row1 - x) - logChoose(n, row1);
  const observed = logP(a);
  const lo = Math.max(0, row1 - (n - col1));
  const hi = Math.min(col1, row1);
  let p = 0;
  // Relative tolerance so that tables exactly as likely as the observed one are counted despite rounding.
  const limit = observed + 1e-7;
  for (let x = lo; x <= hi; x++) {
    const lp = logP(x);
    if (lp <= limit) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

const SMALL_LOG_FACTORIALS: number[] = [0];
function logFactorial(n: number): number {
  if (n < 256) {
    while (SMALL_LOG_FACTORIALS.length <= n)
      SMALL_LOG_FACTORIALS.push(
        (SMALL_LOG_FACTORIALS[SMALL_LOG_FACTORIALS.length - 1] as number) + Math.log(SMALL_LOG_FACTORIALS.length),
      );
    return SMALL_LOG_FACTORIALS[n] as number;
  }
  // Stirling's series: error below 1e-10 for n >= 256.
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + 1 / (12 * n) - 1 / (360 * n ** 3);
}
