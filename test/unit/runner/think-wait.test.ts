/**
 * A session's think time waits on the injected clock (a manual clock here): it ends when that clock has
 * moved on by the think time, not before, and at once, with false, when the phase stops or ends first.
 */
import { describe, expect, it } from 'vitest';
import { thinkWait } from '../../../src/runner/think-wait.js';
import { ManualClock } from '../../../src/util/clock.js';

const settledWithin = async (promise: Promise<boolean>, ms: number): Promise<boolean | 'pending'> =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

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
});
