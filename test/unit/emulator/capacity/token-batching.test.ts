/**
 * The capacity engine's lookahead (a tick also sends what falls due within 0.5 ms) must not merge two
 * tokens of one stream into one delivery (one socket write) unless the tick itself is late by more than
 * their gap less the lookahead. Deterministic: a hand-moved clock and fake timers decide when each tick
 * runs and what time it sees.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CapacityEngine } from '../../../../src/emulator/capacity/capacity-engine.js';
import type { CapacitySpec } from '../../../../src/emulator/model-spec.js';
import { ManualClock } from '../../../../src/util/clock.js';

/** 500 tokens/s: tokens due every 2 ms from 5 ms (the TTFT floor), exactly (no jitter). */
const SPEC: CapacitySpec = {
  prefillTokensPerS: 1_000_000,
  decodeTokensPerS: 500,
  slots: 1,
  ttftFloorMs: 5,
  jitter: 0,
  cacheSpeedup: 0,
};
const GAP_MS = 2;
const FIRST_MS = 5;
const TOKENS = 12;

let engine: CapacityEngine | undefined;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
});
afterEach(() => {
  engine?.close();
  engine = undefined;
  vi.useRealTimers();
});

/**
 * Runs one job where every tick sees the clock at (due time of the next unsent token + lateMs), and
 * returns the token count of each delivery.
 */
function deliveries(lateMs: number): number[] {
  const clock = new ManualClock(0);
  engine = new CapacityEngine({ capacityOf: () => SPEC, clock });
  const counts: number[] = [];
  let sent = 0;
  let finished = false;
  engine.submit(
    { modelId: 'm', tier: 'default', inputTokens: 10, cachedTokens: 0, outputTokens: TOKENS, seed: 1 },
    {
      onTokens: (count) => {
        counts.push(count);
        sent += count;
      },
      onFinish: () => {
        finished = true;
      },
    },
  );
  for (let guard = 0; !finished && guard < 100; guard++) {
    const targetMs = FIRST_MS + GAP_MS * sent + lateMs;
    if (targetMs > clock.nowMs()) clock.advance(targetMs - clock.nowMs());
    vi.advanceTimersToNextTimer();
  }
  expect(finished).toBe(true);
  expect(sent).toBe(TOKENS);
  return counts;
}

describe('capacity engine: lookahead and token batching', () => {
  it('sends each token on its own when ticks are on time, early within the lookahead, or late by less than gap - lookahead', () => {
    for (const lateMs of [0, -0.4, 0.7, 1.45]) {
      expect(deliveries(lateMs), `late by ${lateMs} ms`).toEqual(new Array(TOKENS).fill(1));
    }
  });

  it('a tick late by more than gap - lookahead (1.5 ms here) sends the next token too, in the same delivery', () => {
    const counts = deliveries(1.55);
    expect(counts[0]).toBe(2);
    expect(counts.length).toBeLessThan(TOKENS);
  });
});
