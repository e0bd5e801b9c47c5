/**
 * PreciseWake, the open loop's wake-up: never before the target on a real clock, one callback per
 * wakeAt, cancel() silences it, an already-due target waits one turn (no re-entry), a manual clock waits
 * on timers, several wake-ups share the one wake thread, waiting costs no CPU, and the thread never keeps
 * a process from exiting. How close to the target it wakes is measured by the accuracy benchmark, not
 * here (shared, loaded machines).
 * @module-tag timing
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { PreciseWake } from '../../../src/schedule/precise-wake.js';
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

  it('a manual clock waits on timers (it is read rarely) and wakes once it reaches the target', async () => {
    const { clock, reads } = countingClock(1000);
    let calls = 0;
    const wake = new PreciseWake(clock, () => calls++);
    wake.wakeAt(1001);
    await sleep(100);
    expect(calls).toBe(0);
    // One reading per 1 ms timer at most: a spin would read it tens of thousands of times in 100 ms.
    expect(reads()).toBeLessThan(200);
    clock.advance(5);
    await sleep(30);
    expect(calls).toBe(1);
    wake.cancel();
  });

  it('wakes several PreciseWakes, each at or after its own target, in target order', async () => {
    const order: string[] = [];
    const startMs = systemClock.nowMs();
    const targets = { a: startMs + 12, b: startMs + 4, c: startMs + 8 };
    const late: number[] = [];
    const wakes = Object.entries(targets).map(([name, targetMs]) => {
      const wake = new PreciseWake(systemClock, () => {
        order.push(name);
        late.push(systemClock.nowMs() - targetMs);
      });
      wake.wakeAt(targetMs);
      return wake;
    });
    await sleep(60);
    expect(order).toEqual(['b', 'c', 'a']);
    for (const value of late) expect(value).toBeGreaterThanOrEqual(0);
    for (const wake of wakes) wake.cancel();
  });

  it('costs no CPU while it waits, even with wake-ups under 2 ms apart', async () => {
    // Waiting is the wake thread's futex sleep: a spin would use a whole core here.
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
    expect(wakes).toBeGreaterThan(100);
    expect(cpuShare).toBeLessThan(0.5);
  });

  it('never keeps a process from exiting (the thread is not waited for)', () => {
    // The built module (npm test builds first): a child process cannot load the TypeScript sources.
    const moduleUrl = new URL('../../../dist/schedule/precise-wake.js', import.meta.url).href;
    const clockUrl = new URL('../../../dist/util/clock.js', import.meta.url).href;
    // A child that uses a PreciseWake a few times and then has nothing left to do must exit at once. It
    // runs with --input-type=module, which also makes the wake thread's evaluated source an ES module:
    // the thread must start either way (enough wake-ups that it does start before the child ends).
    const script = `
      const { PreciseWake } = await import(${JSON.stringify(moduleUrl)});
      const { systemClock } = await import(${JSON.stringify(clockUrl)});
      let n = 0;
      const wake = new PreciseWake(systemClock, () => { if (++n < 40) wake.wakeAt(systemClock.nowMs() + 2); else console.log('woke', n); });
      wake.wakeAt(systemClock.nowMs() + 2);
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(child.error).toBeUndefined();
    expect(child.stdout.trim(), child.stderr).toBe('woke 40');
    expect(child.status).toBe(0);
  });
});
