/**
 * A session's think time: waits `ms` on the injected clock, ending early, with false, when the phase stops
 * sending turns (`stop` aborts) or its end comes first. One timer of the clock covers the whole wait: the
 * clock is monotonic and its timers follow it (real ones on the real clock, virtual ones on a manual
 * clock). The wait itself is wait-until.ts.
 */
import type { Clock } from '../util/clock.js';
import { waitUntil } from './wait-until.js';

/**
 * Resolves true once `ms` have passed on `clock`; false at once when `stop` is aborted, or when `endMs`
 * (monotonic ms on `clock`) comes before the wait is over.
 */
export function thinkWait(clock: Clock, ms: number, endMs: number, stop: AbortSignal): Promise<boolean> {
  if (stop.aborted) return Promise.resolve(false);
  const untilMs = clock.nowMs() + ms;
  if (untilMs >= endMs) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return waitUntil(clock, () => clock.nowMs(), untilMs, stop);
}
