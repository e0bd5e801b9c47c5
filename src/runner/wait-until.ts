/**
 * Waiting until a clock reaches a time, ended early by an abort signal: the one wait behind a session's
 * think time (think-wait.ts, the monotonic clock) and `--start-at` (start-at.ts, the wall clock). The clock
 * is re-read every time a timer fires, so a late timer, a wall clock that jumped or a manual clock in tests
 * all end the wait on the clock's own time. Many waits may share one signal (every session of a phase
 * thinking at once): they register through client/abort-fanout.ts, one listener per signal, so Node never
 * warns of a listener leak past 10.
 */
import { offAbort, onAbort } from '../client/abort-fanout.js';

/** setTimeout's longest delay (a longer one fires at once). */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Resolves true once `read()` reaches `untilMs`, false at once when `signal` aborts first. `maxTimerMs`:
 * the longest single timer, so the clock is re-read at least that often (a clock that only moves by hand or
 * may jump needs it; a monotonic clock that timers follow needs one timer for the whole wait).
 */
export function waitUntil(
  read: () => number,
  untilMs: number,
  signal: AbortSignal,
  maxTimerMs = MAX_TIMEOUT_MS,
): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (untilMs - read() <= 0) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const onStop = (): void => {
      if (timer !== null) clearTimeout(timer);
      resolve(false);
    };
    const check = (): void => {
      const leftMs = untilMs - read();
      if (leftMs <= 0) {
        offAbort(signal, onStop);
        resolve(true);
        return;
      }
      timer = setTimeout(check, Math.max(1, Math.min(Math.ceil(leftMs), maxTimerMs, MAX_TIMEOUT_MS)));
    };
    onAbort(signal, onStop);
    check();
  });
}
