/**
 * Waiting until a clock reaches a time, ended early by an abort signal: the one wait behind a session's
 * think time (think-wait.ts, the monotonic clock) and `--start-at` (start-at.ts, the wall clock). The
 * timers are the clock's own (virtual ones on a manual clock), and the time is re-read every time one fires,
 * so a late timer or a wall clock that jumped still end the wait on the clock's own time. Many waits may share one signal (every session of a phase
 * thinking at once): they register through client/abort-fanout.ts, one listener per signal, so Node never
 * warns of a listener leak past 10.
 */
import { offAbort, onAbort } from '../client/abort-fanout.js';
import type { Clock, TimerHandle } from '../util/clock.js';

/** setTimeout's longest delay (a longer one fires at once). */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Resolves true once `read()` reaches `untilMs`, false at once when `signal` aborts first; waits on
 * `clock`'s timers. `maxTimerMs`: the longest single timer, so the time is re-read at least that often (a
 * wall clock that may jump needs it; a monotonic clock that its timers follow needs one timer for the
 * whole wait).
 */
export function waitUntil(
  clock: Clock,
  read: () => number,
  untilMs: number,
  signal: AbortSignal,
  maxTimerMs = MAX_TIMEOUT_MS,
): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (untilMs - read() <= 0) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    let timer: TimerHandle | null = null;
    const onStop = (): void => {
      if (timer !== null) clock.clearTimer(timer);
      resolve(false);
    };
    const check = (): void => {
      const leftMs = untilMs - read();
      if (leftMs <= 0) {
        offAbort(signal, onStop);
        resolve(true);
        return;
      }
      timer = clock.setTimer(check, Math.max(1, Math.min(Math.ceil(leftMs), maxTimerMs, MAX_TIMEOUT_MS)));
    };
    onAbort(signal, onStop);
    check();
  });
}
