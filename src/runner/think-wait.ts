/**
 * A session's think time: waits `ms` on the injected clock, ending early, with false, when the phase stops
 * sending turns (`stop` aborts) or its end comes first. On the real clock one timer covers the whole wait
 * (it is monotonic, and timers follow it); any other clock (tests' manual clock, which only moves by hand)
 * is re-read every MANUAL_POLL_MS. The wait itself is wait-until.ts.
 */
import { systemClock, type Clock } from '../util/clock.js';
import { MAX_TIMEOUT_MS, waitUntil } from './wait-until.js';

/** How often a clock other than the real one is re-read. */
const MANUAL_POLL_MS = 250;

/**
 * Resolves true once `ms` have passed on `clock`; false at once when `stop` is aborted, or when `endMs`
 * (monotonic ms on `clock`) comes before the wait is over.
 */
export function thinkWait(clock: Clock, ms: number, endMs: number, stop: AbortSignal): Promise<boolean> {
  if (stop.aborted) return Promise.resolve(false);
  const untilMs = clock.nowMs() + ms;
  if (untilMs >= endMs) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return waitUntil(() => clock.nowMs(), untilMs, stop, clock === systemClock ? MAX_TIMEOUT_MS : MANUAL_POLL_MS);
}
