/**
 * `--start-at`: the wait between the model pre-flight and the first request, so that shards started on
 * different machines begin together. The target is wall-clock time (machines share UTC, not a monotonic
 * origin); the wait re-reads the wall clock after every timer, so a long wait cannot drift, and ends at
 * once when the run is interrupted.
 */
import type { Clock } from '../util/clock.js';

/** Longest single timer: the wall clock is re-read at least this often (and setTimeout caps at 2^31-1 ms). */
const MAX_TIMER_MS = 1000;

/**
 * Resolves when the wall clock reaches `untilWallMs` (true) or when `signal` aborts first (false).
 * A time already past resolves true at once.
 */
export function waitUntilWall(clock: Clock, untilWallMs: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const onAbort = (): void => {
      if (timer !== null) clearTimeout(timer);
      resolve(false);
    };
    const check = (): void => {
      const leftMs = untilWallMs - clock.wallMs();
      if (leftMs <= 0) {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
        return;
      }
      timer = setTimeout(check, Math.min(leftMs, MAX_TIMER_MS));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
