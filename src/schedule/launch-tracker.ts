/**
 * Bookkeeping shared by the schedule strategies: launches in flight (the one count of them: the runner's
 * graceful stop waits on it too), launch and drop counts, and the one `finished` promise with its outcome. A launch that throws or rejects counts as settled: per-request
 * failures are the client's data, never something that unwinds the schedule.
 */
import type { Clock, TimerHandle } from '../util/clock.js';
import type { ScheduleCallbacks, ScheduleOutcome, ScheduleRun } from './types.js';

export class LaunchTracker {
  launched = 0;
  dropped = 0;
  inFlight = 0;
  done = false;
  readonly finished: Promise<ScheduleOutcome>;
  readonly #callbacks: ScheduleCallbacks;
  readonly #clock: Clock;
  readonly #onFinish: () => void;
  #resolve!: (outcome: ScheduleOutcome) => void;
  /** Waiting for nothing in flight (drained()). */
  #drainWaiters: (() => void)[] = [];
  readonly #settle = (): void => {
    this.inFlight--;
    this.onSettled?.();
    if (this.inFlight === 0 && this.#drainWaiters.length > 0) for (const wake of this.#drainWaiters.splice(0)) wake();
  };
  /** Called after any launch settles (the closed loop relaunches from its own await instead). */
  onSettled: (() => void) | undefined;

  /** `clock`: the schedule's, whose timers time drained()'s deadline (the graceful stop). */
  constructor(callbacks: ScheduleCallbacks, clock: Clock, onFinish: () => void) {
    this.#callbacks = callbacks;
    this.#clock = clock;
    this.#onFinish = onFinish;
    this.finished = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** Starts one request; the returned promise always resolves when it settles. */
  launch(intendedStartMs: number): Promise<void> {
    const index = this.launched++;
    this.inFlight++;
    let pending: Promise<void>;
    try {
      pending = Promise.resolve(this.#callbacks.launch(intendedStartMs, index));
    } catch {
      pending = Promise.resolve();
    }
    return pending.then(this.#settle, this.#settle);
  }

  /** Resolves true when nothing is in flight, false when `timeoutMs` passed first (null: no deadline). */
  drained(timeoutMs: number | null): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      let timer: TimerHandle | undefined;
      const wake = (): void => {
        if (timer !== undefined) this.#clock.clearTimer(timer);
        resolve(true);
      };
      this.#drainWaiters.push(wake);
      if (timeoutMs !== null) {
        timer = this.#clock.setTimer(() => {
          this.#drainWaiters = this.#drainWaiters.filter((waiter) => waiter !== wake);
          resolve(false);
        }, timeoutMs);
      }
    });
  }

  drop(intendedStartMs: number): void {
    this.dropped++;
    this.#callbacks.drop(intendedStartMs);
  }

  /** The schedule as the runner sees it: its end, a stop, what is in flight and a wait for none. */
  run(): ScheduleRun {
    return {
      finished: this.finished,
      stop: () => this.finish(true),
      inFlight: () => this.inFlight,
      drained: (timeoutMs) => this.drained(timeoutMs),
    };
  }

  finish(stoppedEarly: boolean): void {
    if (this.done) return;
    this.done = true;
    this.#onFinish();
    this.#resolve({ launched: this.launched, dropped: this.dropped, stoppedEarly });
  }
}
