/**
 * Regression ("capacity under a p99 SLO can end with no answer"): a search answers every SLO. A p99 step
 * needs 292 clean requests to PASS (582 on average at a load that holds), a p99.9 one 2942 (5874): at a
 * low start load a 60 s step cannot gather them, and the search used to end "inconclusive at <start>" with
 * no capacity. Simulated whole searches (simulate-search.ts, the runner's loop) on near-step curves (a
 * server of known capacity: nothing over the limit below it, a backlog above it), with the runner's
 * step-length rules (aggregate/capacity/step-length.ts): steps capped long enough for a p99 at half the
 * start, the start raised to where the SLO's slowest objective can decide within the cap, an undecided
 * step a ceiling; and the rules before them, for contrast.
 */
import { describe, expect, it } from 'vitest';
import { estimateCapacity } from '../../../../src/aggregate/capacity/capacity-fit.js';
import type { CapacityObjective } from '../../../../src/aggregate/capacity/capacity-slo.js';
import { requestsToDecide } from '../../../../src/aggregate/capacity/exceedance-sprt.js';
import { defaultStepCapMs, lowestDecidablePerS } from '../../../../src/aggregate/capacity/step-length.js';
import { createRng } from '../../../../src/util/rng.js';
import { type Curve, logisticCurve, simulateSearch, stepLimits } from './simulate-search.js';

const P99: CapacityObjective = { key: 'ttft_ms.p99', metric: 'ttft_ms', allowed: 0.01, limit: 250 };
const P999: CapacityObjective = { key: 'ttft_ms.p999', metric: 'ttft_ms', allowed: 0.001, limit: 250 };
const TESTS = { alpha: 0.05, beta: 0.05, indifference: 0.5 };
/** The first block and the default 5 s step warmup. */
const UNTESTED = 6;
const RUNS = 40;

/** Seeded searches: how many ended with a capacity, within 10% of the truth, with the truth in the interval. */
function answers(curve: Curve, settings: Parameters<typeof simulateSearch>[2]) {
  let found = 0;
  let within = 0;
  let covered = 0;
  const ends = new Set<string>();
  for (let i = 0; i < RUNS; i++) {
    const search = simulateSearch(createRng(900 + i), curve, settings);
    ends.add(search.endReason ?? '');
    const estimate = estimateCapacity(search.steps, [curve.objective], { seed: i, resamples: 200 });
    if (estimate.capacity === null) continue;
    found++;
    if (Math.abs(estimate.capacity / curve.truth - 1) <= 0.1) within++;
    const [low, high] = estimate.interval ?? [Number.NaN, Number.NaN];
    if (low <= curve.truth && curve.truth <= high) covered++;
  }
  return { found, within, covered, ends };
}

describe('the requests a sequential test needs to decide', () => {
  it("is Wald's average sample number at a load that holds: 582 for a p99, 5874 for a p99.9, 53 for a p90", () => {
    expect(requestsToDecide({ ...TESTS, allowed: 0.01 })).toBe(582);
    expect(requestsToDecide({ ...TESTS, allowed: 0.001 })).toBe(5874);
    expect(requestsToDecide({ ...TESTS, allowed: 0.1 })).toBe(53);
  });

  it('sizes the default cap for a p99 at half the start load, never under 60 s', () => {
    // 5.1 req/s: 582 requests at 2.55 req/s is 228.2 s, after 6 s untested and 1 block: 236 s.
    expect(defaultStepCapMs(TESTS, 5.1, 6000, 1000)).toBe(236_000);
    expect(defaultStepCapMs(TESTS, 100, 6000, 1000)).toBe(60_000);
    // Within that cap a p99 decides at 2.55 req/s, a p99.9 only from ten times that.
    expect(lowestDecidablePerS([P99], TESTS, 236_000, 6000, 1000)).toBeCloseTo(582 / 229, 9);
    expect(lowestDecidablePerS([P99, P999], TESTS, 236_000, 6000, 1000)).toBeCloseTo(5874 / 229, 9);
  });
});

describe('a capacity search under a p99 or p99.9 SLO', () => {
  it('p99 from a 5.1 req/s start (the issue): no answer in 60 s steps, the capacity with the default cap', () => {
    // Nothing near the limit up to 5.5 req/s, then a backlog: 1% over at the truth, 5.5.
    const curve = logisticCurve('p99 at 5.5', P99, 5.5, 0.05, 0, 5.1);
    const before = answers(curve, { maxBlocks: 60 - UNTESTED, untestedBlocks: UNTESTED });
    expect(before.found).toBe(0);
    expect([...before.ends]).toEqual(['inconclusive at 5.1']);
    expect(stepLimits(curve, { stepRules: true, untestedBlocks: UNTESTED }).start).toBe(5.1);
    const after = answers(curve, { stepRules: true, untestedBlocks: UNTESTED });
    expect(after.found).toBe(RUNS);
    expect(after.within).toBe(RUNS);
    expect(after.covered).toBeGreaterThanOrEqual(0.9 * RUNS);
  });

  it('p99.9: the start raised to where it can decide within the cap, and the capacity found', () => {
    const curve = logisticCurve('p99.9 at 60', P999, 60, 0.5, 0, 5);
    const limits = stepLimits(curve, { stepRules: true, untestedBlocks: UNTESTED });
    // The cap sized for a p99 at 2.5 req/s (240 s): a p99.9 needs 5874 requests in its 233 tested seconds.
    expect(limits.capMs).toBe(240_000);
    expect(limits.start).toBe(25.3);
    const before = answers(curve, { maxBlocks: 60 - UNTESTED, untestedBlocks: UNTESTED });
    expect(before.found).toBe(0);
    const after = answers(curve, { stepRules: true, untestedBlocks: UNTESTED });
    expect(after.found).toBe(RUNS);
    expect(after.within).toBe(RUNS);
    expect(after.covered).toBeGreaterThanOrEqual(0.9 * RUNS);
  });

  it('p99.9 below the lowest load it can decide at: an honest upper bound, not "inconclusive"', () => {
    const curve = logisticCurve('p99.9 at 10', P999, 10, 0.1, 0, 5);
    for (let i = 0; i < 5; i++) {
      const search = simulateSearch(createRng(i), curve, { stepRules: true, untestedBlocks: UNTESTED });
      expect(search.history.map((step) => step.load)).toEqual([25.3]);
      expect(search.firstFail).toBe(25.3);
      expect(search.lastPass).toBeNull();
      expect(search.endReason).toBe('fails at the minimum load');
    }
  });

  it('a stated max_step_duration: the start raised for a p99 too', () => {
    const curve = logisticCurve('p99 at 40', P99, 40, 0.3, 0, 2.5);
    // 20 s steps, 2 s untested: 582 requests in 17 s, 34.3 req/s.
    const settings = { stepRules: true, capMs: 20_000, untestedBlocks: 2 };
    expect(stepLimits(curve, settings).start).toBe(34.3);
    const after = answers(curve, settings);
    expect(after.found).toBe(RUNS);
    expect(after.within).toBe(RUNS);
  });
});
