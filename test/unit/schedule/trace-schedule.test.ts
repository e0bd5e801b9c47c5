/**
 * The trace schedule (schedule/trace-schedule.ts): intended starts are the records' timestamps divided by
 * time_scale, exactly; a shard replays every N-th record from its index; requests and duration cut the
 * trace; max_concurrency drops (and counts) arrivals. A manual clock already past the whole trace makes
 * every arrival due at once, so intended times are compared exactly, with no timing on a loaded machine.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoadSpec, TraceSpec } from '../../../src/profile/resolved-profile.js';
import { readTrace } from '../../../src/profile/sections/trace/trace-file.js';
import { shardLoad, shardProfile, shardScenario } from '../../../src/schedule/shard.js';
import { startSchedule } from '../../../src/schedule/start-schedule.js';
import type { ScheduleCallbacks, ScheduleLimits } from '../../../src/schedule/types.js';
import { ManualClock } from '../../../src/util/clock.js';
import { createRng } from '../../../src/util/rng.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-trace-schedule-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Seconds, as BurstGPT writes them: 10 records at 0, 1, 1, 3, 6, 10, 15, 21, 28, 36 s from the first.
const TIMES_S = [100, 101, 101, 103, 106, 110, 115, 121, 128, 136];
const path = join(dir, 'trace.csv');
writeFileSync(
  path,
  `Timestamp,Request tokens,Response tokens\n${TIMES_S.map((t, i) => `${t},${i + 1},${i + 1}`).join('\n')}\n`,
);

function traceLoad(trace: Partial<TraceSpec> = {}, maxConcurrency = 1000): Extract<LoadSpec, { mode: 'rate' }> {
  // The records as the profile's resolution reads them (from startMs on).
  const records = readTrace({ path, format: 'auto', timestampUnit: null, startMs: trace.startMs ?? 0 });
  return {
    mode: 'rate',
    rate: 1,
    arrival: 'constant',
    burstiness: 1,
    maxConcurrency,
    stages: null,
    trace: { path, format: 'auto', timestampUnit: null, timeScale: 1, startMs: 0, records, ...trace },
  };
}

/** Runs the schedule on a clock already past the trace: every arrival is due at the first tick. */
async function replay(load: LoadSpec, limits: ScheduleLimits = { durationMs: null, requests: null }) {
  const launched: { intendedMs: number; index: number }[] = [];
  const dropped: number[] = [];
  const callbacks: ScheduleCallbacks = {
    // Never settles: every launch stays in flight, so max_concurrency is reached deterministically.
    launch: (intendedMs, index) => {
      launched.push({ intendedMs, index });
      return new Promise<void>(() => {});
    },
    drop: (intendedMs) => dropped.push(intendedMs),
  };
  const clock = new ManualClock(1_000_000);
  const run = startSchedule(load, limits, callbacks, { clock, rng: createRng(1), startMs: 1000 });
  const outcome = await run.finished;
  return { outcome, launched: launched.map((l) => l.intendedMs - 1000), dropped: dropped.map((t) => t - 1000) };
}

describe('trace schedule', () => {
  it('starts each record at its timestamp from the first, divided by time_scale, and ends with the trace', async () => {
    const whole = await replay(traceLoad());
    expect(whole.outcome).toEqual({ launched: 10, dropped: 0, stoppedEarly: false });
    expect(whole.launched).toEqual([0, 1000, 1000, 3000, 6000, 10_000, 15_000, 21_000, 28_000, 36_000]);
    const fast = await replay(traceLoad({ timeScale: 4 }));
    expect(fast.launched).toEqual([0, 250, 250, 750, 1500, 2500, 3750, 5250, 7000, 9000]);
    const slow = await replay(traceLoad({ timeScale: 0.5, startMs: 6000 }));
    expect(slow.launched).toEqual([0, 8000, 18_000, 30_000, 44_000, 60_000]);
  });

  it('requests replays the first N records; duration cuts at start + duration', async () => {
    expect((await replay(traceLoad(), { durationMs: null, requests: 4 })).launched).toEqual([0, 1000, 1000, 3000]);
    expect((await replay(traceLoad(), { durationMs: 10_000, requests: null })).launched).toEqual([
      0, 1000, 1000, 3000, 6000,
    ]);
  });

  it('drops and counts what finds max_concurrency in flight, keeping the other arrivals on time', async () => {
    const run = await replay(traceLoad({}, 3));
    expect(run.outcome).toEqual({ launched: 3, dropped: 7, stoppedEarly: false });
    expect(run.launched).toEqual([0, 1000, 1000]);
    expect(run.dropped).toEqual([3000, 6000, 10_000, 15_000, 21_000, 28_000, 36_000]);
  });

  it('shards take every N-th record from their index: together, the whole trace once', async () => {
    const shares = await Promise.all(
      [1, 2, 3].map(async (index) => (await replay(shardLoad(traceLoad(), { index, count: 3 }))).launched),
    );
    expect(shares).toEqual([
      [0, 3000, 15_000, 36_000],
      [1000, 6000, 21_000],
      [1000, 10_000, 28_000],
    ]);
  });
});

describe('a shard with no records of the trace', () => {
  it('is idle, saying why, while the shards that have records are not', () => {
    const scenario = { name: 's', load: traceLoad(), requests: null, warmupRequests: 0, seed: 1 } as never;
    // 10 records over 12 shards: shards 1-10 replay one each, 11 and 12 none.
    expect(shardScenario(scenario, { index: 10, count: 12 }).idleReason).toBeNull();
    expect(shardScenario(scenario, { index: 11, count: 12 }).idleReason).toBe(
      'a trace of 10 records split over 12 shards leaves none to shard 11',
    );
    expect(shardProfile({ scenarios: [scenario] } as never, { index: 12, count: 12 }).idle.get('s')).toBe(
      'a trace of 10 records split over 12 shards leaves none to shard 12',
    );
  });
});
