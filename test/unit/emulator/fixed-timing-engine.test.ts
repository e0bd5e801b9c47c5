/**
 * The fixed-timing engine on the real clock: every token released exactly once, batched per tick,
 * time_info consistent, cancel stops callbacks.
 * @module-tag timing
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TimeInfo } from '../../../src/protocol/chat.js';
import { FixedTimingEngine } from '../../../src/emulator/fixed-timing-engine.js';
import type { EngineJob } from '../../../src/emulator/engine.js';
import { timeInfoOf } from '../../../src/emulator/time-info.js';

const job = (outputTokens: number): EngineJob => ({
  modelId: 'm',
  tier: 'default',
  inputTokens: 10,
  cachedTokens: 0,
  outputTokens,
  seed: 1,
});

let engine: FixedTimingEngine;
afterEach(() => engine.close());

function run(outputTokens: number): Promise<{ counts: number[]; timeInfo: TimeInfo; elapsedMs: number }> {
  const start = performance.now();
  const counts: number[] = [];
  return new Promise((resolve) => {
    engine.submit(job(outputTokens), {
      onTokens: (count) => counts.push(count),
      onFinish: (times) =>
        resolve({ counts, timeInfo: timeInfoOf(times, times.doneMs), elapsedMs: performance.now() - start }),
    });
  });
}

describe('FixedTimingEngine', () => {
  it('releases every token once and reports time_info that adds up', async () => {
    engine = new FixedTimingEngine({ ttftMs: 5, interTokenMs: 2, tickMs: 2 });
    const { counts, timeInfo, elapsedMs } = await run(50);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(50);
    expect(counts.every((c) => c >= 1)).toBe(true);
    expect(timeInfo.queue_time).toBe(0);
    expect(timeInfo.prompt_time).toBeGreaterThanOrEqual(0.004);
    // 49 gaps of 2 ms at least.
    expect(timeInfo.completion_time).toBeGreaterThanOrEqual(0.09);
    expect(timeInfo.total_time).toBeCloseTo(timeInfo.prompt_time + timeInfo.completion_time, 9);
    expect(timeInfo.total_time * 1000).toBeLessThanOrEqual(elapsedMs + 1);
  });

  it('serves many jobs at once from one timer, each one complete', async () => {
    engine = new FixedTimingEngine({ ttftMs: 2, interTokenMs: 1, tickMs: 5 });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => run(1 + (i % 20))));
    for (const [i, r] of results.entries()) expect(r.counts.reduce((a, b) => a + b, 0)).toBe(1 + (i % 20));
    // With a 5 ms tick and 1 ms per token, tokens come several per callback.
    expect(results.some((r) => r.counts.some((c) => c > 1))).toBe(true);
  });

  it('a job of zero tokens finishes without onTokens', async () => {
    engine = new FixedTimingEngine();
    const { counts } = await run(0);
    expect(counts).toEqual([]);
  });

  it('cancel stops every callback', async () => {
    engine = new FixedTimingEngine({ ttftMs: 1, interTokenMs: 5 });
    let calls = 0;
    const handle = engine.submit(job(100), { onTokens: () => calls++, onFinish: () => calls++ });
    await new Promise((r) => setTimeout(r, 30));
    handle.cancel();
    const seen = calls;
    await new Promise((r) => setTimeout(r, 60));
    expect(calls).toBe(seen);
  });
});
