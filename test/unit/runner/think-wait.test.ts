/**
 * A session's think time waits on the injected clock (a manual clock here): it ends when that clock has
 * moved on by the think time, not before, and at once, with false, when the phase stops or ends first.
 * Many sessions thinking at once on the phase's one signal add one listener to it (no Node warning of a
 * listener leak past 10), and on the real clock one timer covers a whole wait. `--start-at` shares the
 * wait (wait-until.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { thinkWait } from '../../../src/runner/think-wait.js';
import { waitUntilWall } from '../../../src/runner/start-at.js';
import { ManualClock, systemClock } from '../../../src/util/clock.js';

const settledWithin = async (promise: Promise<boolean>, ms: number): Promise<boolean | 'pending'> =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('thinkWait', () => {
  it('waits until the injected clock has moved by the think time', async () => {
    const clock = new ManualClock(1000);
    const wait = thinkWait(clock, 500, Number.POSITIVE_INFINITY, new AbortController().signal);
    expect(await settledWithin(wait, 300)).toBe('pending');
    clock.advance(499);
    expect(await settledWithin(wait, 300)).toBe('pending');
    clock.advance(1);
    expect(await settledWithin(wait, 1000)).toBe(true);
  });

  it('ends at once with false when the phase stops, or when its end comes before the wait is over', async () => {
    const clock = new ManualClock(0);
    const stop = new AbortController();
    const wait = thinkWait(clock, 60_000, Number.POSITIVE_INFINITY, stop.signal);
    stop.abort();
    expect(await settledWithin(wait, 100)).toBe(false);
    expect(await thinkWait(clock, 10, 20, stop.signal)).toBe(false);
    expect(await thinkWait(clock, 30, 20, new AbortController().signal)).toBe(false);
    expect(await thinkWait(clock, 0, 20, new AbortController().signal)).toBe(true);
  });

  it('lets 40 sessions think at once on one signal without a MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const stop = new AbortController();
      const waits = Array.from({ length: 40 }, () =>
        thinkWait(systemClock, 60_000, Number.POSITIVE_INFINITY, stop.signal),
      );
      const short = Array.from({ length: 40 }, () => thinkWait(systemClock, 20, Number.POSITIVE_INFINITY, stop.signal));
      expect(await Promise.all(short)).toEqual(Array(40).fill(true));
      stop.abort();
      expect(await Promise.all(waits)).toEqual(Array(40).fill(false));
      // Warnings are emitted on a later tick.
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  });

  it('arms one timer for the whole think time on the real clock', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const wait = thinkWait(systemClock, 1000, Number.POSITIVE_INFINITY, new AbortController().signal);
    // The wait arms its timer synchronously: every call so far is its own.
    const delays = spy.mock.calls.map((call) => call[1]);
    spy.mockRestore();
    expect(delays).toEqual([1000]);
    expect(await wait).toBe(true);
  });
});

describe('waitUntilWall (--start-at)', () => {
  it('ends on the wall clock, at once for a time past, and with false when interrupted', async () => {
    const clock = new ManualClock(0, 1_000_000);
    expect(await waitUntilWall(clock, 999_000, new AbortController().signal)).toBe(true);
    const interrupt = new AbortController();
    const wait = waitUntilWall(clock, 1_000_500, interrupt.signal);
    expect(await settledWithin(wait, 100)).toBe('pending');
    clock.advance(500);
    expect(await settledWithin(wait, 2000)).toBe(true);
    const interrupted = waitUntilWall(clock, 2_000_000, interrupt.signal);
    interrupt.abort();
    expect(await settledWithin(interrupted, 100)).toBe(false);
  });
});
