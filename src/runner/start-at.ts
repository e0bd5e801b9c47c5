/**
 * `--start-at`: the wait between the model pre-flight and the first request, so that shards started on
 * different machines begin together. The target is wall-clock time (machines share UTC, not a monotonic
 * origin); the wait re-reads the wall clock after every timer of at most MAX_TIMER_MS, so a long wait
 * cannot drift when the wall clock is stepped, and ends at once when the run is interrupted (wait-until.ts).
 */
import type { Clock } from '../util/clock.js';
import { waitUntil } from './wait-until.js';

/** Longest single timer: the wall clock is re-read at least this often. */
const MAX_TIMER_MS = 1000;

/**
 * Resolves when the wall clock reaches `untilWallMs` (true) or when `signal` aborts first (false).
 * A time already past resolves true at once.
 */
export function waitUntilWall(clock: Clock, untilWallMs: number, signal: AbortSignal): Promise<boolean> {
  return waitUntil(clock, () => clock.wallMs(), untilWallMs, signal, MAX_TIMER_MS);
}
