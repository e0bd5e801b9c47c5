/**
 * Arrival offsets of the open loop, drawn without timers: counts and mean gaps per process for a seed
 * (statistical tolerances several standard deviations wide), reproducibility, and stage ramps produced by
 * time-rescaling.
 */
import { describe, expect, it } from 'vitest';
import type { LoadSpec, LoadStage } from '../../../src/profile/resolved-profile.js';
import { arrivalOffsetsMs } from '../../../src/schedule/arrivals.js';
import { createStageProfile } from '../../../src/schedule/stage-profile.js';
import { createRng } from '../../../src/util/rng.js';

type RateLoad = Extract<LoadSpec, { mode: 'rate' }>;

function rateLoad(
  arrival: RateLoad['arrival'],
  rate: number,
  burstiness = 1,
  stages: LoadStage[] | null = null,
): RateLoad {
  return { mode: 'rate', rate, arrival, burstiness, maxConcurrency: 1_000_000, stages };
}

function gapStats(offsets: number[]): { mean: number; cv: number } {
  const gaps = offsets.slice(1).map((t, i) => t - offsets[i]!);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  const variance = gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length;
  return { mean, cv: Math.sqrt(variance) / mean };
}

describe('arrival offsets', () => {
  it('constant: exactly one arrival every 1/rate, starting at 0', () => {
    const offsets = arrivalOffsetsMs(rateLoad('constant', 20), createRng(1), 1000);
    expect(offsets).toEqual(Array.from({ length: 20 }, (_, i) => i * 50));
  });

  it('poisson: count and mean gap match the rate, gaps are exponential (cv ~ 1)', () => {
    // 200 s at 50/s: 10000 expected, sd 100.
    const offsets = arrivalOffsetsMs(rateLoad('poisson', 50), createRng(42), 200_000);
    expect(offsets.length).toBeGreaterThan(9_600);
    expect(offsets.length).toBeLessThan(10_400);
    const { mean, cv } = gapStats(offsets);
    expect(mean).toBeGreaterThan(19.4);
    expect(mean).toBeLessThan(20.6);
    expect(cv).toBeGreaterThan(0.95);
    expect(cv).toBeLessThan(1.05);
  });

  it('gamma: keeps the mean gap, burstiness < 1 clumps (cv = 1/sqrt(shape)), > 1 regularises', () => {
    const bursty = gapStats(arrivalOffsetsMs(rateLoad('gamma', 50, 0.25), createRng(7), 400_000));
    expect(bursty.mean).toBeGreaterThan(19);
    expect(bursty.mean).toBeLessThan(21);
    expect(bursty.cv).toBeGreaterThan(1.85);
    expect(bursty.cv).toBeLessThan(2.15);
    const regular = gapStats(arrivalOffsetsMs(rateLoad('gamma', 50, 4), createRng(7), 200_000));
    expect(regular.mean).toBeGreaterThan(19.6);
    expect(regular.mean).toBeLessThan(20.4);
    expect(regular.cv).toBeGreaterThan(0.47);
    expect(regular.cv).toBeLessThan(0.53);
  });

  it('the same seed gives the same offsets, another seed other offsets', () => {
    const a = arrivalOffsetsMs(rateLoad('poisson', 10), createRng(123), 10_000);
    const b = arrivalOffsetsMs(rateLoad('poisson', 10), createRng(123), 10_000);
    const c = arrivalOffsetsMs(rateLoad('poisson', 10), createRng(124), 10_000);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const g1 = arrivalOffsetsMs(rateLoad('gamma', 10, 0.5), createRng(5), 10_000);
    expect(arrivalOffsetsMs(rateLoad('gamma', 10, 0.5), createRng(5), 10_000)).toEqual(g1);
  });

  it('step stages change the rate: arrival count per stage follows each target', () => {
    const stages: LoadStage[] = [
      { durationMs: 100_000, target: 10, ramp: 'step' },
      { durationMs: 100_000, target: 50, ramp: 'step' },
    ];
    const offsets = arrivalOffsetsMs(rateLoad('poisson', 1, 1, stages), createRng(9), Number.POSITIVE_INFINITY);
    const first = offsets.filter((t) => t < 100_000).length;
    const second = offsets.length - first;
    expect(first).toBeGreaterThan(1000 - 4 * 32);
    expect(first).toBeLessThan(1000 + 4 * 32);
    expect(second).toBeGreaterThan(5000 - 4 * 71);
    expect(second).toBeLessThan(5000 + 4 * 71);
    expect(offsets.at(-1)!).toBeLessThan(200_000);
  });

  it('a linear ramp makes the rate grow continuously (not once per stage)', () => {
    // 0 -> 100/s over 10 s: 500 arrivals in all, 125 in the first half, 375 in the second.
    const stages: LoadStage[] = [{ durationMs: 10_000, target: 100, ramp: 'linear' }];
    const offsets = arrivalOffsetsMs(rateLoad('constant', 1, 1, stages), createRng(1), Number.POSITIVE_INFINITY);
    expect(offsets.length).toBe(500);
    expect(offsets.filter((t) => t < 5_000).length).toBe(125);
    const quarters = [0, 1, 2, 3].map((q) => offsets.filter((t) => t >= q * 2500 && t < (q + 1) * 2500).length);
    // Cumulative 5 t^2 (t in s): 31.25, 125, 281.25, 500 at the quarter ends; arrivals at integers.
    expect(quarters).toEqual([32, 93, 157, 218]);
  });
});

describe('stage profile', () => {
  const profile = createStageProfile([
    { durationMs: 1000, target: 10, ramp: 'linear' },
    { durationMs: 1000, target: 10, ramp: 'step' },
    { durationMs: 2000, target: 30, ramp: 'linear' },
    { durationMs: 500, target: 4, ramp: 'step' },
  ]);

  it('interpolates linear stages from the previous target and holds step stages', () => {
    expect(profile.totalMs).toBe(4500);
    expect(profile.targetAt(500)).toBeCloseTo(5);
    expect(profile.targetAt(1500)).toBeCloseTo(10);
    expect(profile.targetAt(3000)).toBeCloseTo(20);
    expect(profile.targetAt(4200)).toBe(4);
    expect(profile.targetAt(4500)).toBeNull();
  });

  it('inverts the cumulative rate exactly', () => {
    // Stage 1 holds 0.5 * 10/s * 1 s = 5 arrivals; at 2.5 after t=0: 10*(t^2)/2 = 2.5 -> t = 0.7071 s.
    expect(profile.timeOfCumulative(2.5)).toBeCloseTo(707.1, 1);
    expect(profile.timeOfCumulative(5)).toBeCloseTo(1000, 6);
    expect(profile.timeOfCumulative(10)).toBeCloseTo(1500, 6);
    // Stage 3: 10 + 10 t (per s); area after 1 s = 15: cumulative 15 + 15 = 30 at t = 3 s.
    expect(profile.timeOfCumulative(30)).toBeCloseTo(3000, 6);
    // Totals: 5 + 10 + 40 + 2 = 57; beyond that the stages are over.
    expect(profile.timeOfCumulative(56.9)).toBeCloseTo(4475, 6);
    expect(profile.timeOfCumulative(57)).toBe(Number.POSITIVE_INFINITY);
    expect(profile.timeOfCumulative(57.5)).toBe(Number.POSITIVE_INFINITY);
  });
});
