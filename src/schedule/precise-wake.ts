/**
 * Waking up on time for the open loop: one re-armed wake-up that calls back at or just after an absolute
 * target time (monotonic ms). In open loop every latency runs from the scheduled arrival, so a late wake-up
 * is added to every TTFT and E2E; Node timers fire 0.5-1.5 ms late (whole milliseconds, after the delay).
 *
 * On the real clock the process's wake thread (wake-thread.ts) is armed with the earliest pending target
 * of all PreciseWakes: it sleeps in the kernel and wakes the event loop within tens of µs of the target,
 * at no CPU cost while waiting. A plain timer, armed to fire a little after the target, backs it up (and
 * keeps the process alive: the thread does not), and takes over should the thread fail. Any other clock
 * (tests' manual clock: virtual time) uses its own timers only, re-checking the clock each time one fires.
 */
import { systemClock, type Clock, type TimerHandle } from '../util/clock.js';
import { WakeThread } from './wake-thread.js';

/** The backup timer fires this long after the target (Node timers may fire up to ~1.5 ms late anyway). */
export const BACKUP_TIMER_LAG_MS = 2;

let thread: WakeThread | null = null;
/** The wake thread could not run (it failed to start or died): plain timers from then on. */
let threadFailed = false;
/** PreciseWakes waiting for the thread. */
const waitingOnThread = new Set<PreciseWake>();

function armThread(): void {
  let earliest: PreciseWake | null = null;
  for (const wake of waitingOnThread) if (earliest === null || wake.targetMs < earliest.targetMs) earliest = wake;
  if (earliest === null) {
    thread?.disarm();
    return;
  }
  thread ??= new WakeThread(() => {
    threadFailed = true;
    // Everyone waiting still has its backup timer; new wake-ups use timers only.
    waitingOnThread.clear();
  });
  if (!thread.failed) thread.arm(earliest.targetMs, onThreadWake);
}

function onThreadWake(): void {
  const nowMs = performance.now();
  // Earliest first, should several have come due together (a stalled loop).
  const due = [...waitingOnThread].filter((wake) => wake.targetMs <= nowMs).sort((a, b) => a.targetMs - b.targetMs);
  // One callback may cancel or move another's wake-up: each is checked again just before it fires.
  for (const wake of due) if (waitingOnThread.has(wake) && wake.targetMs <= nowMs) wake.dueNow();
  if (waitingOnThread.size > 0) {
    // Woken a hair before a target (the two threads' clock readings differ by a µs or so): look again
    // next turn rather than sleep a whole timer.
    let earliestMs = Number.POSITIVE_INFINITY;
    for (const wake of waitingOnThread) earliestMs = Math.min(earliestMs, wake.targetMs);
    if (earliestMs - nowMs < 0.05) setImmediate(onThreadWake);
    else armThread();
  }
}

export class PreciseWake {
  readonly #clock: Clock;
  readonly #onWake: () => void;
  readonly #useThread: boolean;
  #timer: TimerHandle | undefined;
  #immediate: NodeJS.Immediate | undefined;
  /** The pending target (monotonic ms); meaningful while a wake-up is pending. */
  targetMs = 0;

  /** `onWake` runs once per `wakeAt`, when clock.nowMs() >= the target. */
  constructor(clock: Clock, onWake: () => void) {
    this.#clock = clock;
    this.#onWake = onWake;
    this.#useThread = clock === systemClock;
  }

  /** Calls `onWake` at or just after `targetMs`; replaces any pending wake-up. Never calls it synchronously. */
  wakeAt(targetMs: number): void {
    this.cancel();
    this.targetMs = targetMs;
    const remainingMs = targetMs - this.#clock.nowMs();
    // Already due: still one turn away, so the caller's loop is never re-entered.
    if (remainingMs <= 0) {
      this.#immediate = setImmediate(this.#onTimerOrImmediate);
      return;
    }
    if (this.#useThread && !threadFailed) {
      waitingOnThread.add(this);
      armThread();
      this.#timer = this.#clock.setTimer(this.#onTimerOrImmediate, Math.ceil(remainingMs + BACKUP_TIMER_LAG_MS));
    } else {
      this.#armTimer(remainingMs);
    }
  }

  cancel(): void {
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
    if (waitingOnThread.delete(this)) armThread();
  }

  /** The wake thread found this target due. */
  dueNow(): void {
    waitingOnThread.delete(this);
    this.#fire();
  }

  #fire(): void {
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
    waitingOnThread.delete(this);
    this.#onWake();
  }

  readonly #onTimerOrImmediate = (): void => {
    this.#timer = undefined;
    this.#immediate = undefined;
    const remainingMs = this.targetMs - this.#clock.nowMs();
    if (remainingMs <= 0) {
      this.#fire();
      return;
    }
    // Not there yet (a real timer fired a hair early): look again later.
    this.#armTimer(remainingMs);
  };

  /** A timer for the rest of the wait: whole ms on real timers (they fire late, never early), exact in virtual time. */
  #armTimer(remainingMs: number): void {
    const delayMs = this.#clock === systemClock ? Math.max(1, Math.ceil(remainingMs)) : remainingMs;
    this.#timer = this.#clock.setTimer(this.#onTimerOrImmediate, delayMs);
  }
}
