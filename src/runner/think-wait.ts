/**
 * A session's think time: waits `ms` on the injected clock (re-read after every timer, so a manual clock in
 * tests and a late timer both end the wait on the clock's time), ending early, with false, when the phase
 * stops sending turns (`stop` aborts) or its end comes first.
 */
import type { Clock } from '../util/clock.js';

/** Longest single timer: the clock is re-read at least this often. */
const MAX_TIMER_MS = 250;

/**
 * Resolves true once `ms` have passed on `clock`; false at once when `stop` is aborted, or when `endMs`
 * (monotonic ms on `clock`) comes before the wait is over.
 */
export function thinkWait(clock: Clock, ms: number, endMs: number, stop: AbortSignal): Promise<boolean> {
  if (stop.aborted) return Promise.resolve(false);
  const untilMs = clock.nowMs() + ms;
  if (untilMs >= endMs) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const onStop = (): void => {
      if (timer !== null) clearTimeout(timer);
      resolve(false);
    };
    const check = (): void => {
      const leftMs = untilMs - clock.nowMs();
      if (leftMs <= 0) {
        stop.removeEventListener('abort', onStop);
        resolve(true);
        return;
      }
      timer = setTimeout(check, Math.min(Math.ceil(leftMs), MAX_TIMER_MS));
    };
    stop.addEventListener('abort', onStop, { once: true });
    check();
  });
}
