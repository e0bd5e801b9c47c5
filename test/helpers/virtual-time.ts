/**
 * Runs async work in virtual time on a ManualClock: the clock's timers fire one at a time, earliest first,
 * and between two of them everything the last one set going without waiting on the clock (promise
 * continuations, setImmediate turns, the record finisher of a run in virtual time) runs to rest before the
 * next.
 * So a schedule of minutes finishes in milliseconds of real time, and its order is the order of the
 * virtual times, not of the machine's load (k6 tests its executors the same way, with synctest).
 */
import type { ManualClock } from '../../src/util/clock.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const realTimer = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Lets what the last timer started run to rest: microtasks and immediates (the record finisher of a run in
 * virtual time finishes its records in the next turn: scripted-client.ts's deps), a few turns deep.
 */
async function settle(): Promise<void> {
  await turn();
  await turn();
  await turn();
}

export interface VirtualRunOptions {
  /** Fails the run when virtual time passes this (ms on the clock): a schedule that never ends. */
  readonly untilMs?: number;
}

/**
 * Resolves with `work`'s value once it settles, firing `clock`'s timers in order meanwhile. Throws when
 * `work` waits on nothing the clock or the event loop will ever do, or runs past `untilMs`.
 */
export async function runInVirtualTime<T>(
  clock: ManualClock,
  work: Promise<T>,
  options: VirtualRunOptions = {},
): Promise<T> {
  const untilMs = options.untilMs ?? clock.nowMs() + 3_600_000;
  let done = false;
  const watched = work.finally(() => {
    done = true;
  });
  // The rejection is the caller's (through the returned promise): not an unhandled one meanwhile.
  watched.catch(() => undefined);
  let idleTurns = 0;
  while (!done) {
    await settle();
    if (done) break;
    const nextMs = clock.nextTimerMs();
    if (nextMs === null) {
      // Nothing on the clock: the work waits on the real event loop (a drain in slices) or on nothing.
      if (++idleTurns > 2000) throw new Error('virtual time: the work waits on nothing the clock will do');
      await realTimer();
      continue;
    }
    idleTurns = 0;
    if (nextMs > untilMs) throw new Error(`virtual time: still running at ${untilMs} ms`);
    clock.fireNext();
  }
  return watched;
}
