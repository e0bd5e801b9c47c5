/** Mann-Whitney U on weighted samples: reference values (scipy, asymptotic with continuity), ties, weights. */
import { describe, expect, it } from 'vitest';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import {
  mannWhitneyU,
  standardNormalCdf,
  toWeighted,
  twoProportionTest,
} from '../../../src/report/compare/mann-whitney.js';
import { decodeHistogram } from '../../../src/report/html/histogram-series.js';
import { fisherExact, quantileTest } from '../../../src/report/compare/quantile-test.js';

describe('mannWhitneyU', () => {
  it('matches scipy for fully separated samples', () => {
    // scipy.stats.mannwhitneyu([1..5], [6..10], method='asymptotic') -> U=0, p=0.01219
    const r = mannWhitneyU(toWeighted([1, 2, 3, 4, 5]), toWeighted([6, 7, 8, 9, 10]));
    expect(r.u).toBe(0);
    expect(r.p).toBeCloseTo(0.01219, 4);
    expect(r.probabilityCandidateLarger).toBe(1);
  });

  it('matches scipy with ties', () => {
    // Ranks 1 | 3 3 (3) | 7 7 7 (7 7) | ...: R1 = 28, U1 = 7; tie-corrected sd 5.966, z = -1.76, p = 0.078.
    const r = mannWhitneyU(toWeighted([1, 2, 2, 3, 3, 3]), toWeighted([2, 3, 3, 4, 4, 5]));
    expect(r.u).toBe(7);
    expect(r.p).toBeCloseTo(0.0784, 3);
  });

  it('gives p = 1 for identical samples and no test below two samples a side', () => {
    expect(mannWhitneyU(toWeighted([5, 6, 7]), toWeighted([5, 6, 7])).p).toBe(1);
    expect(mannWhitneyU(toWeighted([5]), toWeighted([1, 2, 3])).p).toBe(1);
  });

  it('weighted buckets give the same answer as the expanded sample', () => {
    const a = [3, 3, 3, 4, 4, 9, 10, 10];
    const b = [4, 5, 5, 5, 9, 11, 12, 12, 12];
    const expanded = mannWhitneyU(
      a.map((value) => ({ value, count: 1 })),
      b.map((value) => ({ value, count: 1 })),
    );
    const weighted = mannWhitneyU(toWeighted(a), toWeighted(b));
    expect(weighted.u).toBe(expanded.u);
    expect(weighted.p).toBeCloseTo(expanded.p, 12);
  });

  it('finds a 20% shift between large samples and none between two draws of one distribution (on histograms)', () => {
    const hist = (values: number[]) => {
      const h = build({ numberOfSignificantValueDigits: 3 });
      for (const v of values) h.recordValue(Math.round(v * 1000));
      return decodeHistogram(encodeIntoCompressedBase64(h), 'ttft_ms')!;
    };
    let seed = 1;
    const rand = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const draw = (n: number, scale: number) => Array.from({ length: n }, () => scale * (50 + 50 * rand()));
    const base = hist(draw(500, 1));
    const same = hist(draw(500, 1));
    const slower = hist(draw(500, 1.2));
    expect(mannWhitneyU(base.buckets, same.buckets).p).toBeGreaterThan(0.01);
    expect(mannWhitneyU(base.buckets, slower.buckets).p).toBeLessThan(1e-6);
  });
});

describe('twoProportionTest and the normal CDF', () => {
  it('Φ has the textbook values', () => {
    expect(standardNormalCdf(0)).toBeCloseTo(0.5, 7);
    expect(standardNormalCdf(1.959964)).toBeCloseTo(0.975, 5);
  });

  it('2% vs 10% failures of 500 is significant; 2% vs 2.4% is not', () => {
    expect(twoProportionTest(10, 500, 50, 500).p).toBeLessThan(0.001);
    expect(twoProportionTest(10, 500, 12, 500).p).toBeGreaterThan(0.5);
    expect(twoProportionTest(0, 500, 0, 500).p).toBe(1);
  });
});

describe('quantile test', () => {
  it("Fisher's exact test has the textbook values", () => {
    // Lady tasting tea: [[3, 1], [1, 3]] -> p = 0.4857; R fisher.test(matrix(c(1, 11, 9, 3), 2)) -> p = 0.002759.
    expect(fisherExact(3, 1, 1, 3)).toBeCloseTo(0.4857, 4);
    expect(fisherExact(1, 9, 11, 3)).toBeCloseTo(0.002759, 5);
    expect(fisherExact(5, 5, 5, 5)).toBeCloseTo(1, 9);
  });

  it('sees a tail that grew while the median stayed, and ignores a median shift at p99', () => {
    const body = Array.from({ length: 400 }, (_, i) => 100 + (i % 100));
    const fatTail = [...body.slice(0, 360), ...Array.from({ length: 40 }, () => 900)];
    expect(quantileTest(toWeighted(body), toWeighted(fatTail), 95).p).toBeLessThan(1e-6);
    expect(quantileTest(toWeighted(body), toWeighted(fatTail), 50).p).toBeGreaterThan(0.05);
  });
});
