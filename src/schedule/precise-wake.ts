/**
 * Waking up on time for the open loop: one re-armed wake-up that calls back at or just after an absolute
 * target time (monotonic ms). Node timers count whole milliseconds and fire after their delay, typically
 * 0.5-1.5 ms past a target; that lateness is added to every measured TTFT/E2E, because latencies run from
 * the intended start. So the timer is armed `leadMs` before the target and the rest of the wait is spent
 * in setImmediate turns (the event loop still polls I/O between turns) until the clock reaches the target.
 * The spin lasts at most about `leadMs` + 1 ms per wake-up, and all spinning together is held to
 * SPIN_BUDGET_SHARE of each second: at high arrival rates (arrivals closer than the lead) spinning would
 * otherwise take a core from the machine under test, so past the budget the wake-up falls back to a plain
 * timer and its lateness shows, honestly, as schedule lag. A clock that does not move between two turns
 * (the manual clock of unit tests) falls back to a plain timer instead of spinning, so tests stay
 * deterministic and idle.
 */
import type { Clock } from '../util/clock.js';

/** How far before the target the timer is armed (ms): covers a timer firing up to ~1.5 ms late. */
export const WAKE_LEAD_MS = 2;

/** Share of wall time the spin may use, measured over windows of SPIN_WINDOW_MS. */
export const SPIN_BUDGET_SHARE = 0.1;
const SPIN_WINDOW_MS = 1000;

export class PreciseWake {
  readonly #clock: Clock;
  readonly #leadMs: number;
  readonly #onWake: () => void;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #targetMs = 0;
  /** Clock reading at the previous spin turn (NaN: not spinning). */
  #lastSpinMs = Number.NaN;
  /** When the current spin began (NaN: not spinning), and the spin time spent in the current window. */
  #spinStartMs = Number.NaN;
  #windowStartMs = Number.NaN;
  #windowSpinMs = 0;

  /** `onWake` runs once per `wakeAt`, when clock.nowMs() >= the target (or on a timer, see above). */
  constructor(clock: Clock, onWake: () => void, leadMs = WAKE_LEAD_MS) {
    this.#clock = clock;
    this.#onWake = onWake;
    this.#leadMs = leadMs;
  }

  /** Calls `onWake` at or just after `targetMs`; replaces any pending wake-up. Never calls it synchronously. */
  wakeAt(targetMs: number): void {
    this.cancel();
    this.#targetMs = targetMs;
    // Already due: still one turn away, so the caller's loop is never re-entered.
    if (targetMs <= this.#clock.nowMs()) this.#immediate = setImmediate(this.#onImmediate);
    else this.#arm();
  }

  cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
    this.#lastSpinMs = Number.NaN;
    this.#endSpin();
  }

  #arm(): void {
    const nowMs = this.#clock.nowMs();
    const remainingMs = this.#targetMs - nowMs;
    if (remainingMs <= 0) {
      this.#fire();
      return;
    }
    const timerMs = Math.floor(remainingMs - this.#leadMs);
    if (timerMs >= 1) {
      this.#lastSpinMs = Number.NaN;
      this.#timer = setTimeout(this.#onTimer, timerMs);
    } else if (nowMs === this.#lastSpinMs || !this.#maySpin(nowMs)) {
      // The clock stood still for a whole turn (not a real clock), or the spin budget is spent: wait on a
      // timer and re-check on wake-up.
      this.#lastSpinMs = Number.NaN;
      this.#endSpin();
      this.#timer = setTimeout(this.#onTimer, Math.max(1, Math.ceil(remainingMs)));
    } else {
      if (Number.isNaN(this.#spinStartMs)) this.#spinStartMs = nowMs;
      this.#lastSpinMs = nowMs;
      this.#immediate = setImmediate(this.#onImmediate);
    }
  }

  /** True while spinning stays within SPIN_BUDGET_SHARE of the current window. */
  #maySpin(nowMs: number): boolean {
    if (Number.isNaN(this.#windowStartMs) || nowMs - this.#windowStartMs >= SPIN_WINDOW_MS) {
      this.#windowStartMs = nowMs;
      this.#windowSpinMs = 0;
    }
    const spinningMs = Number.isNaN(this.#spinStartMs) ? 0 : nowMs - this.#spinStartMs;
    return this.#windowSpinMs + spinningMs < SPIN_BUDGET_SHARE * SPIN_WINDOW_MS;
  }

  #endSpin(): void {
    if (Number.isNaN(this.#spinStartMs)) return;
    this.#windowSpinMs += this.#clock.nowMs() - this.#spinStartMs;
    this.#spinStartMs = Number.NaN;
  }

  #fire(): void {
    this.#lastSpinMs = Number.NaN;
    this.#endSpin();
    this.#onWake();
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#arm();
  };

  readonly #onImmediate = (): void => {
    this.#immediate = undefined;
    this.#arm();
  };
}
