/**
 * Time, injected: what reads the time or waits for it is given a Clock (STYLE 8, 15). The system clock is
 * monotonic (performance.now(), never Date.now(): wall clocks jump with NTP) with real timers; the manual
 * clock is virtual time for tests: it moves only when told, and moving it fires its due timers in order,
 * so a schedule's logic runs on it in milliseconds of real time.
 *
 * `performance.now()` has sub-microsecond resolution on Node, but its origin is the start of the thread: a
 * worker thread (`run --workers`) shifts its clocks onto the main thread's origin once at start
 * (alignMonotonicOrigin), so microsecond timestamps from every thread of a run can be subtracted.
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

/** A pending timer of a Clock, to cancel it with clearTimer(). */
export type TimerHandle = object;

export interface Clock {
  /** Monotonic milliseconds (fractional) since an arbitrary origin. */
  nowMs(): number;
  /**
   * nowMs() in integer microseconds: the unit of every RequestRecord timestamp (integers go straight into
   * HDR histograms). The client stamps with it, so the runner's times and a record's can be subtracted.
   */
  nowUs(): number;
  /** Wall-clock milliseconds since the Unix epoch, for labels and `started_at` only. */
  wallMs(): number;
  /** Calls `fn` once, when `ms` have passed on this clock (never synchronously). */
  setTimer(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer of this clock that has not fired (a fired or cancelled one: nothing). */
  clearTimer(handle: TimerHandle): void;
}

/** The process's clock: performance.now() and real timers. */
export const systemClock: Clock = {
  nowMs: () => performance.now() + originShiftMs,
  nowUs: () => Math.round((performance.now() + originShiftMs) * 1000),
  wallMs: () => Date.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Monotonic microseconds of the system clock, for what is timed outside a run's injected clock (the
 * benchmarks, the arrival batch of util/arrival-clock.ts). Code given a Clock reads clock.nowUs().
 */
export function nowUs(): number {
  return Math.round((performance.now() + originShiftMs) * 1000);
}

interface ManualTimer {
  readonly dueMs: number;
  /** Creation order: timers due together fire in the order they were set. */
  readonly seq: number;
  readonly fn: () => void;
}

/**
 * Virtual time: a clock tests move by hand. Its timers fire only when it is moved past them, in order of
 * due time (then of creation), each with the clock standing at its due time; a timer set while others fire
 * fires in the same move when it falls due within it.
 */
export class ManualClock implements Clock {
  #nowMs: number;
  #wallOriginMs: number;
  /** Pending timers, earliest first. */
  #timers: ManualTimer[] = [];
  #seq = 0;

  constructor(startMs = 0, wallOriginMs = Date.UTC(2026, 0, 1)) {
    this.#nowMs = startMs;
    this.#wallOriginMs = wallOriginMs;
  }

  nowMs(): number {
    return this.#nowMs;
  }

  nowUs(): number {
    return Math.round(this.#nowMs * 1000);
  }

  wallMs(): number {
    return this.#wallOriginMs + this.#nowMs;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    // Like setTimeout, no delay (or not a number) is 1 ms, so a timer that re-arms itself cannot fire
    // forever at one instant; a fractional delay is kept (virtual time has no timer granularity).
    const delayMs = ms > 0 ? ms : 1;
    const timer: ManualTimer = { dueMs: this.#nowMs + delayMs, seq: this.#seq++, fn };
    let at = this.#timers.length;
    while (at > 0 && (this.#timers[at - 1] as ManualTimer).dueMs > timer.dueMs) at--;
    this.#timers.splice(at, 0, timer);
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    const at = this.#timers.indexOf(handle as ManualTimer);
    if (at >= 0) this.#timers.splice(at, 1);
  }

  /** Due time (ms on this clock) of the earliest pending timer, or null when none is pending. */
  nextTimerMs(): number | null {
    return this.#timers[0]?.dueMs ?? null;
  }

  /** Timers set and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /**
   * Moves the clock to the earliest pending timer and fires it alone (false: none pending), so a driver
   * can let what it started run before the next one fires, as the event loop runs microtasks between
   * two timers (test/helpers/virtual-time.ts).
   */
  fireNext(): boolean {
    const next = this.#timers.shift();
    if (next === undefined) return false;
    if (next.dueMs > this.#nowMs) this.#nowMs = next.dueMs;
    next.fn();
    return true;
  }

  /** Moves the clock on by `ms`, firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    this.advanceTo(this.#nowMs + ms);
  }

  /** Moves the clock to `targetMs` (never back), firing every timer that falls due on the way, in order. */
  advanceTo(targetMs: number): void {
    for (;;) {
      const next = this.#timers[0];
      if (next === undefined || next.dueMs > targetMs) break;
      this.#timers.shift();
      if (next.dueMs > this.#nowMs) this.#nowMs = next.dueMs;
      next.fn();
    }
    if (targetMs > this.#nowMs) this.#nowMs = targetMs;
  }
}
