/**
 * Monotonic time. Everything measured uses these, never Date.now(): wall clocks jump (NTP), monotonic
 * clocks do not. `performance.now()` has sub-microsecond resolution on Node and shares its origin across
 * the process, so microsecond timestamps from it can be subtracted anywhere in the harness.
 */
export interface Clock {
  /** Monotonic milliseconds (fractional) since an arbitrary origin. */
  nowMs(): number;
  /** Wall-clock milliseconds since the Unix epoch, for labels and `started_at` only. */
  wallMs(): number;
}

export const systemClock: Clock = {
  nowMs: () => performance.now(),
  wallMs: () => Date.now(),
};

/** Monotonic microseconds, for the request hot path (integers go straight into HDR histograms). */
export function nowUs(): number {
  return Math.round(performance.now() * 1000);
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
