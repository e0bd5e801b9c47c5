/**
 * The schedules with real timers: intended starts on the grid even when the event loop is blocked, drops
 * at max_concurrency, exactly N in flight in a closed loop, stages changing the load, limits and stop().
 * Timing tolerances are wide on purpose (shared, loaded CI machines).
 */
import { describe, expect, it } from 'vitest';
import type { LoadSpec, LoadStage } from '../../../src/profile/resolved-profile.js';
import { startSchedule } from '../../../src/schedule/start-schedule.js';
import type { ScheduleCallbacks } from '../../../src/schedule/types.js';
import { ManualClock, systemClock } from '../../../src/util/clock.js';
import { createRng } from '../../../src/util/rng.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function rate(r: number, options: Partial<Extract<LoadSpec, { mode: 'rate' }>> = {}): LoadSpec {
  return {
    mode: 'rate',
    rate: r,
    arrival: 'constant',
    burstiness: 1,
    maxConcurrency: 10_000,
    stages: null,
    ...options,
  };
}

/** Records every launch (intended time, actual time, in flight at launch) and settles after `holdMs`. */
function recorder(holdMs: number) {
  const launches: { intendedMs: number; actualMs: number; index: number; inFlight: number }[] = [];
  const drops: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const callbacks: ScheduleCallbacks = {
    launch: async (intendedMs, index) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      launches.push({ intendedMs, actualMs: performance.now(), index, inFlight });
      await sleep(holdMs);
      inFlight--;
    },
    drop: (intendedMs) => drops.push(intendedMs),
  };
  return { callbacks, launches, drops, maxInFlight: () => maxInFlight };
}

describe('open loop', () => {
  it('launches on the absolute grid and stops at the request limit', async () => {
    const rec = recorder(1);
    const startMs = performance.now() + 5;
    const run = startSchedule(rate(100), { durationMs: null, requests: 20 }, rec.callbacks, {
      clock: systemClock,
      rng: createRng(1),
      startMs,
    });
    const outcome = await run.finished;
    expect(outcome).toEqual({ launched: 20, dropped: 0, stoppedEarly: false });
    expect(rec.launches.map((l) => l.intendedMs - startMs)).toEqual(
      rec.launches.map((_, i) => expect.closeTo(i * 10, 6)),
    );
    expect(rec.launches.map((l) => l.index)).toEqual([...Array(20).keys()]);
    for (const launch of rec.launches) expect(launch.actualMs).toBeGreaterThanOrEqual(launch.intendedMs);
  });

  it('stops when the next intended start would be past the duration', async () => {
    const rec = recorder(1);
    const startMs = performance.now();
    const outcome = await startSchedule(rate(50), { durationMs: 300, requests: null }, rec.callbacks, {
      clock: systemClock,
      rng: createRng(1),
      startMs,
    }).finished;
    // Arrivals at 0, 20, ..., 280 ms: 15 of them; 300 is not < 300.
    expect(outcome.launched).toBe(15);
    expect(performance.now() - startMs).toBeGreaterThanOrEqual(279);
  });

  it('keeps intended times on the grid when the event loop is blocked, and the lag shows it', async () => {
    const rec = recorder(1);
    const startMs = performance.now();
    const run = startSchedule(rate(100), { durationMs: 400, requests: null }, rec.callbacks, {
      clock: systemClock,
      rng: createRng(1),
      startMs,
    });
    await sleep(100);
    const blockStart = performance.now();
    while (performance.now() - blockStart < 100) {
      // Busy wait: the timer cannot fire.
    }
    await run.finished;
    expect(rec.launches.length).toBe(40);
    for (const [i, l] of rec.launches.entries()) expect(l.intendedMs - startMs).toBeCloseTo(i * 10, 6);
    // Arrivals due during the block went out together afterwards with their original intended times.
    const blockedOffsetMs = blockStart - startMs;
    const late = rec.launches.filter(
      (l) => l.intendedMs - startMs > blockedOffsetMs + 5 && l.intendedMs - startMs < blockedOffsetMs + 60,
    );
    expect(late.length).toBeGreaterThanOrEqual(4);
    for (const l of late) expect(l.actualMs - l.intendedMs).toBeGreaterThan(35);
    const firstLate = late[0]!;
    expect(firstLate.actualMs - firstLate.intendedMs).toBeGreaterThan(80);
  });

  it('with a manual clock: every due arrival launches at once with its own intended time', async () => {
    const clock = new ManualClock(1000);
    const intended: number[] = [];
    const run = startSchedule(
      rate(10),
      { durationMs: 1000, requests: null },
      { launch: async (t) => void intended.push(t), drop: () => undefined },
      { clock, rng: createRng(1) },
    );
    expect(intended).toEqual([1000]); // offset 0 launches synchronously
    clock.advance(350);
    await sleep(300); // the timer wakes (real time), sees 350 ms passed on the clock
    expect(intended).toEqual([1000, 1100, 1200, 1300]);
    clock.advance(5000);
    const outcome = await run.finished;
    expect(intended).toEqual([1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900]);
    expect(outcome).toEqual({ launched: 10, dropped: 0, stoppedEarly: false });
  });

  it('drops arrivals at max_concurrency instead of delaying them', async () => {
    const rec = recorder(150);
    const run = startSchedule(rate(100, { maxConcurrency: 2 }), { durationMs: 300, requests: null }, rec.callbacks, {
      clock: systemClock,
      rng: createRng(1),
    });
    const outcome = await run.finished;
    expect(outcome.launched + outcome.dropped).toBe(30);
    expect(outcome.dropped).toBe(rec.drops.length);
    expect(outcome.dropped).toBeGreaterThanOrEqual(20);
    expect(rec.maxInFlight()).toBe(2);
    // No delayed launch: every launch went out within a timer slack of its intended time.
    for (const l of rec.launches) expect(l.actualMs - l.intendedMs).toBeLessThan(120);
    await sleep(200);
    expect(run.inFlight()).toBe(0);
  });

  it('stages change the rate while the schedule runs', async () => {
    const rec = recorder(1);
    const stages: LoadStage[] = [
      { durationMs: 400, target: 20, ramp: 'step' },
      { durationMs: 400, target: 100, ramp: 'step' },
    ];
    const startMs = performance.now();
    const outcome = await startSchedule(rate(1, { stages }), { durationMs: null, requests: null }, rec.callbacks, {
      clock: systemClock,
      rng: createRng(3),
      startMs,
    }).finished;
    const first = rec.launches.filter((l) => l.intendedMs - startMs < 399.5).length;
    expect(first).toBe(8);
    expect(outcome.launched - first).toBe(40);
  });

  it('stop() ends launching early', async () => {
    const rec = recorder(1);
    const t0 = performance.now();
    const run = startSchedule(rate(100), { durationMs: 10_000, requests: null }, rec.callbacks, {
      clock: systemClock,
      rng: createRng(1),
      startMs: t0,
    });
    await sleep(100);
    run.stop();
    const elapsedMs = performance.now() - t0;
    const outcome = await run.finished;
    expect(outcome.stoppedEarly).toBe(true);
    const launched = rec.launches.length;
    expect(launched).toBeGreaterThan(3);
    expect(launched).toBeLessThanOrEqual(Math.floor(elapsedMs / 10) + 1);
    await sleep(50);
    expect(rec.launches.length).toBe(launched);
  });
});

describe('closed loop', () => {
  it('keeps exactly N in flight and launches again as each ends', async () => {
    const rec = recorder(10);
    const outcome = await startSchedule(
      { mode: 'concurrency', concurrency: 4, stages: null },
      { durationMs: null, requests: 40 },
      rec.callbacks,
      { clock: systemClock, rng: createRng(1) },
    ).finished;
    expect(outcome).toEqual({ launched: 40, dropped: 0, stoppedEarly: false });
    expect(rec.maxInFlight()).toBe(4);
    // Every launch replaces one that ended (a turn later: launches are paced, launch-pacer.ts), so there
    // are never more than 4 in flight, and each round of four ends with 4 in flight again.
    for (const l of rec.launches) expect(l.inFlight).toBeLessThanOrEqual(4);
    expect(rec.launches.filter((l) => l.inFlight === 4).length).toBeGreaterThanOrEqual(10);
    // Intended start = the moment of launch.
    for (const l of rec.launches) expect(l.actualMs - l.intendedMs).toBeLessThan(5);
  });

  it('stops launching at the duration and stop() ends early', async () => {
    const rec = recorder(30);
    const t0 = performance.now();
    const outcome = await startSchedule(
      { mode: 'concurrency', concurrency: 3, stages: null },
      { durationMs: 200, requests: null },
      rec.callbacks,
      { clock: systemClock, rng: createRng(1) },
    ).finished;
    expect(performance.now() - t0).toBeGreaterThanOrEqual(199);
    expect(outcome.stoppedEarly).toBe(false);
    for (const l of rec.launches) expect(l.intendedMs - t0).toBeLessThan(200);
    // 3 workers relaunching every ~30 ms for 200 ms: at most 3 x 7; at least two rounds even when loaded.
    expect(outcome.launched).toBeGreaterThanOrEqual(6);
    expect(outcome.launched).toBeLessThanOrEqual(21);

    const rec2 = recorder(20);
    const run = startSchedule(
      { mode: 'concurrency', concurrency: 2, stages: null },
      { durationMs: null, requests: null },
      rec2.callbacks,
      {
        clock: systemClock,
        rng: createRng(1),
      },
    );
    await sleep(90);
    run.stop();
    const stopped = await run.finished;
    expect(stopped.stoppedEarly).toBe(true);
    for (let waited = 0; run.inFlight() > 0 && waited < 2000; waited += 10) await sleep(10);
    expect(run.inFlight()).toBe(0);
    expect(rec2.launches.length).toBe(stopped.launched);
  });

  it('drained() waits for what is in flight after the schedule finished, with a deadline', async () => {
    const rec = recorder(300);
    const run = startSchedule(
      { mode: 'concurrency', concurrency: 2, stages: null },
      { durationMs: null, requests: 2 },
      rec.callbacks,
      { clock: systemClock, rng: createRng(1) },
    );
    await run.finished;
    // Both requests hold for 300 ms: not drained within 20 ms, drained without a deadline.
    expect(run.inFlight()).toBe(2);
    expect(await run.drained(20)).toBe(false);
    expect(await run.drained(null)).toBe(true);
    expect(run.inFlight()).toBe(0);
    expect(await run.drained(0)).toBe(true);
  });

  it('stages change the number of workers over time', async () => {
    const rec = recorder(10);
    const stages: LoadStage[] = [
      { durationMs: 300, target: 2, ramp: 'step' },
      { durationMs: 300, target: 5, ramp: 'step' },
    ];
    const startMs = performance.now();
    const outcome = await startSchedule(
      { mode: 'concurrency', concurrency: 1, stages },
      { durationMs: null, requests: null },
      rec.callbacks,
      {
        clock: systemClock,
        rng: createRng(1),
        startMs,
      },
    ).finished;
    expect(outcome.stoppedEarly).toBe(false);
    const early = rec.launches.filter((l) => l.intendedMs - startMs < 280);
    const late = rec.launches.filter((l) => l.intendedMs - startMs > 400);
    expect(Math.max(...early.map((l) => l.inFlight))).toBe(2);
    expect(Math.max(...late.map((l) => l.inFlight))).toBe(5);
    for (const l of rec.launches) expect(l.intendedMs - startMs).toBeLessThan(600);
  });
});

describe('closed loop with launches that settle at once', () => {
  it('still ends at the duration (timers are not starved)', async () => {
    let launches = 0;
    const t0 = performance.now();
    const outcome = await startSchedule(
      { mode: 'concurrency', concurrency: 4, stages: null },
      { durationMs: 100, requests: null },
      {
        launch: () => {
          launches++;
          return Promise.resolve();
        },
        drop: () => undefined,
      },
      { clock: systemClock, rng: createRng(1) },
    ).finished;
    expect(performance.now() - t0).toBeGreaterThanOrEqual(99);
    expect(outcome.launched).toBe(launches);
    expect(launches).toBeGreaterThan(100);
  });
});
