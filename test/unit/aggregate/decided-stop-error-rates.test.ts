/**
 * stop_when_decided's error rates over seeded simulations (no sockets): a group whose requests exceed
 * `ttft_ms.p99 < 800` independently with probability p, 100 requests a tick, is decided by the very
 * DecidedStop the runner uses, read through a live group's HDR histogram as the collector keeps it. At
 * p = p0 = 0.5% (clearly within the threshold) a FAIL is the wrong decision, at p = p1 = 1.5% (clearly
 * beyond) a PASS is; over a few hundred seeded runs each stays below alpha = beta = 5%, with margin. An
 * error_rate threshold is checked the same way. Every run decides within the tick cap (Wald's test ends
 * with probability 1; the average sample number at p0 is about 580 requests).
 */
import { describe, expect, it } from 'vitest';
import { createDecidedStop } from '../../../src/aggregate/decided-stop.js';
import { createHistogram, type Histogram } from '../../../src/aggregate/histogram.js';
import type { LiveGroup } from '../../../src/aggregate/live-thresholds.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { createRng, type Rng } from '../../../src/util/rng.js';

const RUNS = 300;
const PER_TICK = 100;
const MAX_TICKS = 200;

/** The part of a live group the decision reads: ok and failed counts and the ttft histogram (µs). */
class SimulatedGroup {
  ok = 0;
  failed = 0;
  readonly ttft: Histogram = createHistogram();

  histogram(metric: string): Histogram | undefined {
    return metric === 'ttft_ms' ? this.ttft : undefined;
  }
}

interface Outcome {
  readonly pass: number;
  readonly fail: number;
  readonly undecided: number;
  readonly meanRequests: number;
}

/** RUNS seeded runs of one threshold at exceedance probability p: how each was decided. */
function simulate(threshold: string, p: number, seed: number, exceed: (g: SimulatedGroup, rng: Rng) => void): Outcome {
  const profile = resolveProfileText(
    `scenarios:\n  - name: s\n    models: [a]\n    duration: 60s\nstop_when_decided: true\nthresholds: ["${threshold}"]\n`,
    'sim.yaml',
  );
  const root = createRng(seed);
  let pass = 0;
  let fail = 0;
  let requests = 0;
  for (let run = 0; run < RUNS; run++) {
    const rng = root.fork(run);
    const group = new SimulatedGroup();
    const stop = createDecidedStop(profile, 0);
    if (stop === null) throw new Error(`${threshold} cannot be decided`);
    stop.measuring(0);
    for (let tick = 1; tick <= MAX_TICKS; tick++) {
      for (let i = 0; i < PER_TICK; i++) {
        if (rng.next() < p) exceed(group, rng);
        else {
          group.ok++;
          group.ttft.recordValue(100_000 + rng.int(0, 600_000));
        }
      }
      const stopped = stop.check(() => group as unknown as LiveGroup, tick * 1_000_000);
      if (stopped?.reason !== 'decided') continue;
      const verdict = stopped.thresholds[0];
      if (verdict?.verdict === 'pass') pass++;
      else fail++;
      requests += verdict?.requests ?? 0;
      break;
    }
  }
  return { pass, fail, undecided: RUNS - pass - fail, meanRequests: requests / (pass + fail) };
}

/** An exceedance of a latency threshold: a slow answer (over 800 ms) or, one time in four, a failure. */
function slowOrFailed(group: SimulatedGroup, rng: Rng): void {
  if (rng.next() < 0.25) group.failed++;
  else {
    group.ok++;
    group.ttft.recordValue(800_001 + rng.int(0, 2_000_000));
  }
}

function failure(group: SimulatedGroup): void {
  group.failed++;
}

describe('stop_when_decided error rates over seeded simulations', () => {
  it('ttft_ms.p99 < 800: wrong decisions at p0 and p1 stay below alpha and beta (5%)', () => {
    const atP0 = simulate('ttft_ms.p99 < 800', 0.005, 1, slowOrFailed);
    const atP1 = simulate('ttft_ms.p99 < 800', 0.015, 2, slowOrFailed);
    expect(atP0.undecided).toBe(0);
    expect(atP1.undecided).toBe(0);
    // Wrong: FAIL at p0 (alpha), PASS at p1 (beta). Wald's bounds and the blocks' overshoot keep both
    // well under 5% of RUNS (15); 10 leaves room for the seed and still fails a test that has lost its bounds.
    expect(atP0.fail).toBeLessThan(RUNS * 0.05 * (2 / 3));
    expect(atP1.pass).toBeLessThan(RUNS * 0.05 * (2 / 3));
    // Far from the zone, decisions are right and quick.
    const clean = simulate('ttft_ms.p99 < 800', 0, 3, slowOrFailed);
    expect(clean.pass).toBe(RUNS);
    expect(clean.meanRequests).toBe(300);
    const bad = simulate('ttft_ms.p99 < 800', 0.05, 4, slowOrFailed);
    expect(bad.fail).toBe(RUNS);
    expect(bad.meanRequests).toBeLessThanOrEqual(200);
  });

  it('error_rate < 0.02: the same at p0 = 1% and p1 = 3%', () => {
    const atP0 = simulate('error_rate < 0.02', 0.01, 5, failure);
    const atP1 = simulate('error_rate < 0.02', 0.03, 6, failure);
    expect(atP0.undecided + atP1.undecided).toBe(0);
    expect(atP0.fail).toBeLessThan(RUNS * 0.05 * (2 / 3));
    expect(atP1.pass).toBeLessThan(RUNS * 0.05 * (2 / 3));
  });
});
