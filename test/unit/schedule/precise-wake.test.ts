/**
 * PreciseWake, the open loop's wake-up: never before the target on a real clock, one callback per
 * wakeAt, cancel() silences it, an already-due target waits one turn (no re-entry), and a clock that
 * stands still (the manual clock of tests) waits on timers instead of spinning. How close to the target
 * it wakes is measured by the accuracy benchmark, not here (shared, loaded machines).
 */
import { describe, expect, it } from 'vitest';
import { PreciseWake, WAKE_LEAD_MS } from '../../../src/schedule/precise-wake.js';
import { type Clock, ManualClock, systemClock } from '../../../src/util/clock.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A manual clock that counts its readings, to tell a spin from a timer wait. */
function countingClock(startMs: number): { clock: ManualClock & Clock; reads: () => number } {
  const clock = new ManualClock(startMs);
  let reads = 0;
  const nowMs = clock.nowMs.bind(clock);
  clock.nowMs = () => {
    reads++;
    return nowMs();
  };
  return { clock, reads: () => reads };
}

describe('PreciseWake', () => {
  it('on the real clock wakes at or after each target, once per wakeAt', async () => {
    const lateMs: number[] = [];
    let targetMs = 0;
    let resolveDone!: () => void;
    const done = new Promise<void>((resolve) => (resolveDone = resolve));
    const wake = new PreciseWake(systemClock, () => {
      lateMs.push(systemClock.nowMs() - targetMs);
      if (lateMs.length === 20) return resolveDone();
      targetMs = systemClock.nowMs() + 0.5 + (lateMs.length % 7);
      wake.wakeAt(targetMs);
    });
    targetMs = systemClock.nowMs() + 3.3;
    wake.wakeAt(targetMs);
    await done;
    await sleep(20);
    expect(lateMs).toHaveLength(20);
    for (const late of lateMs) expect(late).toBeGreaterThanOrEqual(0);
  });

  it('cancel() and a new wakeAt replace the pending wake-up', async () => {
    const woke: number[] = [];
    const wake = new PreciseWake(systemClock, () => woke.push(systemClock.nowMs()));
    wake.wakeAt(systemClock.nowMs() + 5);
    wake.cancel();
    const targetMs = systemClock.nowMs() + 10;
    wake.wakeAt(systemClock.nowMs() + 1);
    wake.wakeAt(targetMs);
    await sleep(60);
    expect(woke).toHaveLength(1);
    expect(woke[0]!).toBeGreaterThanOrEqual(targetMs);
  });

  it('an already-due target calls back on a later turn, never synchronously', async () => {
    const clock = new ManualClock(100);
    let calls = 0;
    const wake = new PreciseWake(clock, () => calls++);
    wake.wakeAt(99);
    expect(calls).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    await sleep(1);
    expect(calls).toBe(1);
  });

  it('a clock that stands still waits on timers (no spin) and wakes once it reaches the target', async () => {
    const { clock, reads } = countingClock(1000);
    let calls = 0;
    const wake = new PreciseWake(clock, () => calls++);
    wake.wakeAt(1000 + WAKE_LEAD_MS / 2); // inside the spin window from the start
    await sleep(100);
    expect(calls).toBe(0);
    // A spin would read the clock tens of thousands of times in 100 ms; a 1 ms timer plus one setImmediate
    // turn per wake-up (to see that the clock stood still) reads it about 200 times.
    expect(reads()).toBeLessThan(1000);
    clock.advance(5);
    await sleep(30);
    expect(calls).toBe(1);
    wake.cancel();
  });

  it('lets I/O and other callbacks run while it spins', async () => {
    // A clock that moves 0.001 ms per reading: the wait is spent in setImmediate turns.
    let nowMs = 0;
    const clock: Clock = { nowMs: () => (nowMs += 0.001), wallMs: () => 0 };
    let otherTurns = 0;
    let woke = false;
    const wake = new PreciseWake(clock, () => (woke = true));
    wake.wakeAt(1.5);
    const other = (): void => {
      otherTurns++;
      if (!woke) setImmediate(other);
    };
    setImmediate(other);
    while (!woke) await new Promise((resolve) => setImmediate(resolve));
    expect(otherTurns).toBeGreaterThan(100);
  });

  it('holds its spinning to a budget when arrivals are closer than the lead (no core taken from the target)', async () => {
    // Arrivals 1.4 ms apart are always inside the 2 ms lead: without the budget every moment is a spin
    // turn and the process burns a whole core. With it, spinning is SPIN_BUDGET_SHARE of the time.
    let wakes = 0;
    const wake = new PreciseWake(systemClock, () => {
      wakes++;
      wake.wakeAt(systemClock.nowMs() + 1.4);
    });
    const cpuBefore = process.cpuUsage();
    const wallStartMs = systemClock.nowMs();
    wake.wakeAt(wallStartMs + 1.4);
    await sleep(600);
    wake.cancel();
    const cpu = process.cpuUsage(cpuBefore);
    const cpuShare = (cpu.user + cpu.system) / 1000 / (systemClock.nowMs() - wallStartMs);
    expect(wakes).toBeGreaterThan(50);
    expect(cpuShare).toBeLessThan(0.6);
  });
});
