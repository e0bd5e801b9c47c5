import { describe, expect, it } from 'vitest';
import { createRng, hashString } from '../../../src/util/rng.js';
import { exponential, gamma, lognormal, normal, uniform } from '../../../src/util/distributions.js';

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
function variance(values: number[]): number {
  const m = mean(values);
  return values.reduce((a, b) => a + (b - m) ** 2, 0) / (values.length - 1);
}
function draw(n: number, f: () => number): number[] {
  return Array.from({ length: n }, f);
}

describe('seeded rng', () => {
  it('repeats for a seed and differs across seeds', () => {
    const a = draw(5, createRng(42).next.bind(createRng(42)));
    const r1 = createRng(42);
    const r2 = createRng(42);
    const r3 = createRng(43);
    const s1 = draw(100, () => r1.next());
    expect(draw(100, () => r2.next())).toEqual(s1);
    expect(draw(100, () => r3.next())).not.toEqual(s1);
    expect(a).toHaveLength(5);
  });

  it('is uniform on [0, 1)', () => {
    const rng = createRng(7);
    const values = draw(100_000, () => rng.next());
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    expect(mean(values)).toBeCloseTo(0.5, 2);
    // Ten equal buckets each hold about a tenth (binomial sd ~ 95; 6 sd margin).
    const buckets = new Array(10).fill(0) as number[];
    for (const v of values) buckets[Math.floor(v * 10)]!++;
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(600);
  });

  it('int covers both ends inclusively', () => {
    const rng = createRng(1);
    const seen = new Set(draw(2000, () => rng.int(3, 6)));
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
  });

  it('forks are stable and independent of each other', () => {
    const a = createRng(9).fork('scenario-a');
    const b = createRng(9).fork('scenario-a');
    const c = createRng(9).fork('scenario-b');
    const sa = draw(20, () => a.next());
    expect(draw(20, () => b.next())).toEqual(sa);
    expect(draw(20, () => c.next())).not.toEqual(sa);
  });

  it('hashes strings stably', () => {
    expect(hashString('abc')).toBe(hashString('abc'));
    expect(hashString('abc')).not.toBe(hashString('abd'));
    expect(hashString('')).toBe(0x811c9dc5);
  });
});

describe('distributions', () => {
  const n = 50_000;
  it('exponential has the requested mean', () => {
    const rng = createRng(11);
    expect(mean(draw(n, () => exponential(rng, 0.2)))).toBeCloseTo(0.2, 2);
  });

  it('normal has the requested mean and stddev', () => {
    const rng = createRng(12);
    const values = draw(n, () => normal(rng, 512, 64));
    expect(Math.abs(mean(values) - 512)).toBeLessThan(2);
    expect(Math.abs(Math.sqrt(variance(values)) - 64)).toBeLessThan(2);
  });

  it('lognormal has the requested mean and stddev of its values', () => {
    const rng = createRng(13);
    const values = draw(n, () => lognormal(rng, 300, 100));
    expect(Math.abs(mean(values) - 300)).toBeLessThan(5);
    expect(Math.abs(Math.sqrt(variance(values)) - 100)).toBeLessThan(8);
    expect(Math.min(...values)).toBeGreaterThan(0);
  });

  it('gamma keeps the mean for any shape; the coefficient of variation is 1/sqrt(shape)', () => {
    for (const shape of [0.5, 1, 4]) {
      const rng = createRng(14);
      const values = draw(n, () => gamma(rng, shape, 0.1 / shape));
      expect(Math.abs(mean(values) - 0.1)).toBeLessThan(0.004);
      const cv = Math.sqrt(variance(values)) / mean(values);
      expect(Math.abs(cv - 1 / Math.sqrt(shape))).toBeLessThan(0.05);
    }
  });

  it('uniform stays in range', () => {
    const rng = createRng(15);
    const values = draw(n, () => uniform(rng, 10, 20));
    expect(Math.min(...values)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...values)).toBeLessThan(20);
    expect(mean(values)).toBeCloseTo(15, 0);
  });
});
