/**
 * Monotonic time. Everything measured uses these, never Date.now(): wall clocks jump (NTP), monotonic
 * clocks do not. `performance.now()` has sub-microsecond resolution on Node, but its origin is the start
 * of the thread: a worker thread (`run --workers`) shifts its clocks onto the main thread's origin once at
 * start (alignMonotonicOrigin), so microsecond timestamps from every thread of a run can be subtracted.
 */

/** Added to performance.now(): 0 on the main thread, the gap between the origins in a worker thread. */
let originShiftMs = 0;

/**
 * Moves this thread's monotonic clocks by `shiftMs` (the main thread's performance.now() = this thread's +
 * shiftMs). Called once, before anything is timed.
 */
export function alignMonotonicOrigin(shiftMs: number): void {
  originShiftMs = shiftMs;
}
export interface Clock {
  /** Monotonic milliseconds (fractional) since an arbitrary origin. */
  nowMs(): number;
  /** Wall-clock milliseconds since the Unix epoch, for labels and `started_at` only. */
  wallMs(): number;
}

export const systemClock: Clock = {
  nowMs: () => performance.now() + originShiftMs,
  wallMs: () => Date.now(),
};

/** Monotonic microseconds, for the request hot path (integers go straight into HDR histograms). */
export function nowUs(): number {
  return Math.round((performance.now() + originShiftMs) * 1000);
}

/** A clock tests move by hand, so schedules are deterministic. */
export class ManualClock implements Clock {
  #nowMs: number;
  #wallOriginMs: number;

  constructor(startMs = 0, wallOriginMs = Date.UTC(2026, 0, 1)) {
    this.#nowMs = startMs;
    this.#wallOriginMs = wallOriginMs;
  }

  nowMs(): number {
    return this.#nowMs;
  }

  wallMs(): number {
    return this.#wallOriginMs + this.#nowMs;
  }

  advance(ms: number): void {
    this.#nowMs += ms;
  }
}
