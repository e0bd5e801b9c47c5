import { afterEach, describe, expect, it } from 'vitest';
import type { TimeInfo } from '../../../../src/protocol/chat.js';
import type { ServiceTierUsed } from '../../../../src/protocol/chat.js';
import { CapacityEngine } from '../../../../src/emulator/capacity/capacity-engine.js';
import { timeInfoOf } from '../../../../src/emulator/time-info.js';
import type { CapacitySpec } from '../../../../src/emulator/model-spec.js';

const ONE_SLOT: CapacitySpec = {
  prefillTokensPerS: 1_000_000,
  decodeTokensPerS: 200,
  slots: 1,
  ttftFloorMs: 5,
  jitter: 0,
  cacheSpeedup: 0.5,
};

interface Finished {
  readonly label: string;
  readonly tokens: number;
  readonly calls: number;
  readonly timeInfo: TimeInfo;
  readonly submittedMs: number;
  readonly firstTokenMs: number;
  readonly finishedMs: number;
}

let engines: CapacityEngine[] = [];
afterEach(() => {
  for (const engine of engines) engine.close();
  engines = [];
});

function engineWith(spec: CapacitySpec): CapacityEngine {
  const engine = new CapacityEngine({ capacityOf: (id) => (id === 'm' ? spec : undefined) });
  engines.push(engine);
  return engine;
}

function run(
  engine: CapacityEngine,
  label: string,
  tier: ServiceTierUsed,
  outputTokens: number,
  extra: { inputTokens?: number; cachedTokens?: number; modelId?: string; receivedMs?: number } = {},
): Promise<Finished> {
  return new Promise((resolve) => {
    const submittedMs = performance.now();
    let firstTokenMs = Number.NaN;
    let tokens = 0;
    let calls = 0;
    engine.submit(
      {
        modelId: extra.modelId ?? 'm',
        tier,
        inputTokens: extra.inputTokens ?? 10,
        cachedTokens: extra.cachedTokens ?? 0,
        outputTokens,
        seed: 7,
        receivedMs: extra.receivedMs,
      },
      {
        onTokens(count) {
          if (tokens === 0) firstTokenMs = performance.now();
          tokens += count;
          calls++;
        },
        onFinish(times) {
          const timeInfo = timeInfoOf(times, times.doneMs);
          resolve({ label, tokens, calls, timeInfo, submittedMs, firstTokenMs, finishedMs: performance.now() });
        },
      },
    );
  });
}

describe('capacity engine', () => {
  it('serves the queue by tier: priority, then default, then flex, FIFO within a tier', async () => {
    const engine = engineWith(ONE_SLOT);
    const order: string[] = [];
    const track = (p: Promise<Finished>) =>
      p.then((f) => {
        order.push(f.label);
        return f;
      });
    // The first job holds the only slot while the others queue in a deliberately mixed order.
    const all = [
      track(run(engine, 'busy', 'default', 20)),
      track(run(engine, 'flex-1', 'flex', 2)),
      track(run(engine, 'default-1', 'default', 2)),
      track(run(engine, 'flex-2', 'flex', 2)),
      track(run(engine, 'priority-1', 'priority', 2)),
      track(run(engine, 'default-2', 'default', 2)),
      track(run(engine, 'priority-2', 'priority', 2)),
    ];
    expect(engine.load('m')).toEqual({ busySlots: 1, queued: 6, slots: 1 });
    const finished = await Promise.all(all);
    expect(order).toEqual(['busy', 'priority-1', 'priority-2', 'default-1', 'default-2', 'flex-1', 'flex-2']);
    const queue = Object.fromEntries(finished.map((f) => [f.label, f.timeInfo.queue_time]));
    expect(queue.busy).toBeLessThan(0.005);
    expect(queue['priority-1']!).toBeLessThan(queue['default-1']!);
    expect(queue['default-2']!).toBeLessThan(queue['flex-1']!);
    // The busy job decodes 20 tokens at 200/s: ~95 ms after its first token; everyone else waited for it.
    expect(queue['priority-1']!).toBeGreaterThan(0.09);
  });

  it('emits exactly outputTokens at the decode rate in wall-clock time and reports what the job spent', async () => {
    const engine = engineWith({ ...ONE_SLOT, slots: 4, decodeTokensPerS: 100, ttftFloorMs: 30 });
    const done = await run(engine, 'a', 'default', 21);
    expect(done.tokens).toBe(21);
    // 21 tokens: the first at the end of prefill, the other 20 at 100/s = 200 ms.
    expect(done.timeInfo.completion_time).toBeGreaterThan(0.19);
    expect(done.timeInfo.completion_time).toBeLessThan(0.35);
    expect(done.timeInfo.prompt_time).toBeGreaterThanOrEqual(0.029);
    expect(done.timeInfo.queue_time).toBeLessThan(0.01);
    const { queue_time, prompt_time, completion_time, total_time } = done.timeInfo;
    expect(total_time).toBeCloseTo(queue_time + prompt_time + completion_time, 4);
    // What the caller measured agrees with time_info (generous: a loaded machine).
    const measuredTtftS = (done.firstTokenMs - done.submittedMs) / 1000;
    expect(Math.abs(measuredTtftS - (queue_time + prompt_time))).toBeLessThan(0.02);
    expect(Math.abs((done.finishedMs - done.submittedMs) / 1000 - total_time)).toBeLessThan(0.02);
    const nowS = Date.now() / 1000;
    expect(done.timeInfo.created).toBeGreaterThan(nowS - 5);
    expect(done.timeInfo.created).toBeLessThanOrEqual(nowS);
    expect(Number.isInteger(done.timeInfo.created)).toBe(false);
  });

  it('counts queue time from when the request was read, not from its submission', async () => {
    const engine = engineWith({ ...ONE_SLOT, slots: 4 });
    const readMs = engine.nowMs() - 80;
    const wallBefore = Date.now();
    const done = await run(engine, 'a', 'default', 3, { receivedMs: readMs });
    // A free slot at once: the whole 80 ms between reading and submitting is queue time.
    expect(done.timeInfo.queue_time).toBeGreaterThanOrEqual(0.08);
    expect(done.timeInfo.queue_time).toBeLessThan(0.08 + 0.05);
    const { queue_time, prompt_time, completion_time, total_time } = done.timeInfo;
    expect(Math.round(total_time * 1e6)).toBe(
      Math.round(queue_time * 1e6) + Math.round(prompt_time * 1e6) + Math.round(completion_time * 1e6),
    );
    // created is the wall clock at the read, 80 ms before the submission.
    expect(done.timeInfo.created * 1000).toBeLessThan(wallBefore - 75);
    expect(done.timeInfo.created * 1000).toBeGreaterThan(wallBefore - 200);
    // A receipt stamp after the submission (another clock) cannot make queue time negative.
    const late = await run(engine, 'b', 'default', 3, { receivedMs: engine.nowMs() + 1000 });
    expect(late.timeInfo.queue_time).toBeGreaterThanOrEqual(0);
    expect(late.timeInfo.queue_time).toBeLessThan(0.01);
  });

  it('makes long prompts slower than short ones, and cached prefixes faster', async () => {
    const engine = engineWith({ ...ONE_SLOT, slots: 8, prefillTokensPerS: 10_000, ttftFloorMs: 1 });
    const [short, long, cached] = await Promise.all([
      run(engine, 'short', 'default', 1, { inputTokens: 100 }),
      run(engine, 'long', 'default', 1, { inputTokens: 2000 }),
      run(engine, 'cached', 'default', 1, { inputTokens: 2000, cachedTokens: 1600 }),
    ]);
    // 2000 tokens at 10k/s = 200 ms; 1600 cached at half cost: (400 + 800) / 10k = 120 ms.
    expect(long.timeInfo.prompt_time).toBeGreaterThan(0.19);
    expect(short.timeInfo.prompt_time).toBeLessThan(0.05);
    expect(cached.timeInfo.prompt_time).toBeGreaterThan(0.11);
    expect(cached.timeInfo.prompt_time).toBeLessThan(long.timeInfo.prompt_time - 0.05);
  });

  it('finishes a job with no output tokens after its prompt time, without calling onTokens', async () => {
    const engine = engineWith(ONE_SLOT);
    const done = await run(engine, 'empty', 'default', 0);
    expect(done.calls).toBe(0);
    expect(done.timeInfo.completion_time).toBe(0);
    expect(done.timeInfo.prompt_time).toBeGreaterThanOrEqual(0.004);
  });

  it('frees the slot of a cancelled job and never calls it back', async () => {
    const engine = engineWith(ONE_SLOT);
    let calledAfterCancel = false;
    let cancelled = false;
    const handle = engine.submit(
      { modelId: 'm', tier: 'default', inputTokens: 1, cachedTokens: 0, outputTokens: 1000, seed: 1 },
      {
        onTokens: () => {
          if (cancelled) calledAfterCancel = true;
        },
        onFinish: () => {
          calledAfterCancel = true;
        },
      },
    );
    const waiting = run(engine, 'next', 'flex', 3);
    const queuedWhileBusy = engine.load('m').queued;
    await new Promise((r) => setTimeout(r, 30));
    handle.cancel();
    cancelled = true;
    const next = await waiting;
    expect(queuedWhileBusy).toBe(1);
    expect(next.tokens).toBe(3);
    expect(calledAfterCancel).toBe(false);
    // Without the cancel it would have waited 5 s for the 1000-token job.
    expect(next.timeInfo.queue_time).toBeLessThan(1);
  });

  it('keeps a rolling average queue time that rises under contention and falls back when idle', async () => {
    const engine = new CapacityEngine({ capacityOf: () => ONE_SLOT, queueAverageWindowMs: 200 });
    engines.push(engine);
    expect(engine.averageQueueMs('m')).toBe(0);
    const jobs = [run(engine, 'a', 'default', 30), run(engine, 'b', 'default', 30), run(engine, 'c', 'default', 30)];
    await jobs[1];
    const busyAverage = engine.averageQueueMs('m');
    expect(busyAverage).toBeGreaterThan(20);
    await Promise.all(jobs);
    await new Promise((r) => setTimeout(r, 1200));
    expect(engine.averageQueueMs('m')).toBeLessThan(busyAverage / 5);
  });

  it('gives each model its own slots', async () => {
    const engine = new CapacityEngine({ capacityOf: () => ONE_SLOT });
    engines.push(engine);
    const a = run(engine, 'a', 'default', 20, { modelId: 'x' });
    const b = run(engine, 'b', 'default', 1, { modelId: 'y' });
    expect((await b).timeInfo.queue_time).toBeLessThan(0.01);
    await a;
  });

  it('survives a writer that throws and keeps serving other streams', async () => {
    const errors: unknown[] = [];
    const engine = new CapacityEngine({
      capacityOf: () => ({ ...ONE_SLOT, slots: 2 }),
      onCallbackError: (e) => errors.push(e),
    });
    engines.push(engine);
    engine.submit(
      { modelId: 'm', tier: 'default', inputTokens: 1, cachedTokens: 0, outputTokens: 50, seed: 1 },
      {
        onTokens: () => {
          throw new Error('socket gone');
        },
        onFinish: () => undefined,
      },
    );
    const other = await run(engine, 'ok', 'default', 10);
    expect(other.tokens).toBe(10);
    expect(errors).toHaveLength(1);
    expect(engine.load('m').busySlots).toBe(0);
  });
});
