/**
 * The offset from performance.now() to CLOCK_MONOTONIC that the accuracy benchmark puts every client
 * stamp on (test/helpers/known-timing/known-timing-stats.ts): read on scripted clocks, a preemption
 * between two reads must not become the offset.
 */
import { describe, expect, it } from 'vitest';
import { monotonicOffsetMs } from '../../helpers/known-timing/known-timing-stats.js';

/** Clocks 1000 ms apart, each read taking 0.001 ms; `stalls[i]` ms pass before the i-th now() read. */
function scriptedClocks(stalls: readonly number[]) {
  let monotonic = 5_000;
  let reads = 0;
  return {
    monotonicMs: () => {
      monotonic += 0.001;
      return monotonic;
    },
    nowMs: () => {
      monotonic += 0.001 + (stalls[reads++] ?? 0);
      return monotonic - 1000;
    },
  };
}

describe('monotonicOffsetMs', () => {
  it('is the clocks difference when no read is interrupted', () => {
    expect(monotonicOffsetMs(scriptedClocks([]))).toBeCloseTo(1000, 6);
  });

  it('keeps the tightest of its reads: a 12.5 ms preemption in the first reads leaves no trace', () => {
    // One read of each clock would have said 1000 + 12.5 / 2 or worse.
    expect(monotonicOffsetMs(scriptedClocks([12.5, 3, 12.5, 0.5]))).toBeCloseTo(1000, 6);
  });

  it('agrees with the process clocks within a millisecond', () => {
    const offset = monotonicOffsetMs();
    expect(Math.abs(Number(process.hrtime.bigint()) / 1e6 - performance.now() - offset)).toBeLessThan(1);
  });
});
