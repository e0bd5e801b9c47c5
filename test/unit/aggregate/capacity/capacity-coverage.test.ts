/**
 * Coverage of the capacity interval over whole simulated searches (simulate-search.ts: the planner, a
 * sequential test per step stopped at its first decision, the fit), 200 seeds per curve: the truth inside
 * the reported 95% interval in at least 90% of searches (the issue asks for 9 of 10), the capacity within
 * 10% of the truth, and the interval's median width. The interpolated percentiles (`posterior`) and the
 * block bootstrap are measured beside the default `bracket` to keep the reason for the choice visible:
 * they under-cover because steps near the crossing stop on a lucky run (biased fractions) and because
 * interpolating between two loads tested pretends to know where the curve crosses between them.
 */
import { describe, expect, it } from 'vitest';
import { pooledDesignEffect } from '../../../../src/aggregate/capacity/design-effect.js';
import { createRng } from '../../../../src/util/rng.js';
import { block } from './simulate.js';
import { CURVES, logisticCurve, searchCoverage } from './simulate-search.js';

const RUNS = 200;
const SEED = 7000;

describe('capacity interval coverage over 200 simulated searches per curve', () => {
  it('covers a smooth p99 curve (0.5% at 46.5, 1% at 50, 1.5% at 52)', () => {
    const bracket = searchCoverage(CURVES.smooth, RUNS, SEED);
    const interpolated = searchCoverage(CURVES.smooth, RUNS, SEED, { method: 'posterior' });
    // Measured: bracket 0.96 (median width 24% of the truth), interpolated 0.85 (8%); within 10%: 0.995.
    expect(bracket.covered).toBeGreaterThanOrEqual(0.93);
    expect(bracket.within).toBeGreaterThanOrEqual(0.98);
    expect(bracket.medianWidth).toBeLessThan(0.3);
    expect(interpolated.covered).toBeLessThan(bracket.covered);
  });

  it('covers a near-step curve (a server of known capacity: a backlog above it) with a narrow interval', () => {
    const bracket = searchCoverage(CURVES.steep, RUNS, SEED);
    const blocks = searchCoverage(CURVES.steep, RUNS, SEED, { method: 'block-bootstrap', resamples: 200 });
    // Measured: bracket 1.0 (median width 4.25%), interpolated 0.93 (2.8%), block bootstrap 0.625 (0.85%).
    expect(bracket.covered).toBeGreaterThanOrEqual(0.95);
    expect(bracket.within).toBe(1);
    expect(bracket.medianWidth).toBeLessThan(0.08);
    expect(blocks.covered).toBeLessThan(0.8);
    expect(searchCoverage(CURVES.steep, RUNS, SEED, { method: 'posterior' }).covered).toBeLessThan(bracket.covered);
  });

  it('covers a near-step p99 curve with the settings of the real-socket search (50 req/s, 10%, 20 s steps)', () => {
    // The coverage over seeds that test/integration/runner/capacity-coverage.test.ts checked on sockets (a
    // 40 req/s server searched 3 times, minutes of real time) is checked here, on a near-step curve under
    // a p99 SLO: 0.5% over at 49.9, 90% at 50.5. The search on a scripted server of known capacity in
    // virtual time (test/unit/runner/capacity-virtual-time.test.ts) and the one real-socket search
    // (capacity-p99) keep the end-to-end truth.
    const curve = logisticCurve('steep p99 at 50', { ...CURVES.smooth.objective, limit: 200 }, 50, 0.1, 0, 5);
    const settings = { stepRules: true, capMs: 20_000, untestedBlocks: 2, resolution: 0.1 } as const;
    const real = searchCoverage(curve, RUNS, SEED, settings);
    expect(real.covered).toBeGreaterThanOrEqual(0.9);
    expect(real.within).toBe(1);
    expect(real.medianWidth).toBeLessThan(0.15);
  });

  it('covers a curve whose exceedances cluster in time, with the design effect pooled over steps', () => {
    // As the runner does: each step's test floored by the design effect of the steps before it.
    const floored = searchCoverage(CURVES.clustered, RUNS, SEED);
    // Without that floor the tests decide wrongly more often (a PASS on too few requests).
    const plain = searchCoverage(CURVES.clustered, RUNS, SEED, { sprtFloor: false });
    // Measured: 0.93 (median width 24%) and 0.91 (33%); the interpolated interval before this: 0.61.
    expect(plain.covered).toBeGreaterThanOrEqual(0.88);
    expect(floored.covered).toBeGreaterThanOrEqual(0.9);
    expect(floored.medianWidth).toBeLessThan(plain.medianWidth);
    expect(floored.within).toBeGreaterThanOrEqual(0.88); // measured 0.915: clustering misleads the tests too
  });
});

describe('pooledDesignEffect', () => {
  it('is about 1 for independent requests and 1 + (n - 1) rho for clustered blocks, each step against its own fraction', () => {
    const rng = createRng(11);
    // Steps at different fractions: pooling them as one fraction would read their difference as clustering.
    const steps = (rho: number) =>
      [0.02, 0.05, 0.1].map((p) => Array.from({ length: 40 }, () => block(rng, 50, p, rho)));
    const independent = pooledDesignEffect(steps(0));
    const clustered = pooledDesignEffect(steps(0.05)); // 1 + 49 x 0.05 = 3.45
    expect(independent).toBeLessThan(1.3);
    expect(clustered).toBeGreaterThan(2.5);
    expect(clustered).toBeLessThan(4.5);
  });

  it('is 1 until enough blocks show a dispersion, and ignores steps all over or all within', () => {
    expect(pooledDesignEffect([[{ exceeded: 5, total: 10 }], [{ exceeded: 0, total: 10 }]])).toBe(1);
    const alternating = Array.from({ length: 6 }, (_, i) => ({ exceeded: i % 2 === 0 ? 4 : 0, total: 10 }));
    const full = Array.from({ length: 6 }, () => ({ exceeded: 10, total: 10 }));
    expect(pooledDesignEffect([alternating, full])).toBeCloseTo(pooledDesignEffect([alternating]), 12);
    // Every block 2 from the expected 2, over 10 x 0.2 x 0.8, on 5 degrees of freedom.
    expect(pooledDesignEffect([alternating])).toBeCloseTo((6 * (4 / 1.6)) / 5, 12);
  });
});
