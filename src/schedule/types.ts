/**
 * The schedule's contract with the runner: *when* to start requests. The schedule never sends anything
 * itself; it calls `launch` at the intended time (absolute, run start + offset) and counts what it could
 * not start. Closed loop launches a new request when one ends; open loop launches on arrival times.
 */
import type { Clock } from '../util/clock.js';
import type { Rng } from '../util/rng.js';

export interface ScheduleCallbacks {
  /**
   * Start request number `index` whose intended start was `intendedStartMs` (monotonic ms). The promise
   * settles when the request ends (closed loop waits on it; open loop only counts it as in flight).
   */
  launch(intendedStartMs: number, index: number): Promise<void>;
  /** An open-loop arrival that found max_concurrency requests in flight: counted, never delayed. */
  drop(intendedStartMs: number): void;
}

export interface ScheduleLimits {
  /** Stop launching at start + durationMs (null: no time limit). */
  readonly durationMs: number | null;
  /** Stop after this many launches (null: no count limit). */
  readonly requests: number | null;
}

export interface ScheduleDeps {
  readonly clock: Clock;
  readonly rng: Rng;
  /** Monotonic ms at which offset 0 is (default: clock.nowMs() when started). */
  readonly startMs?: number;
}

export interface ScheduleRun {
  /** Resolves when no more requests will be launched (limits reached or stop()); in-flight ones may go on. */
  readonly finished: Promise<ScheduleOutcome>;
  /** Stop launching now (end of duration, Ctrl-C). */
  stop(): void;
  /** Requests launched and not yet settled. */
  inFlight(): number;
  /** Resolves true once nothing is in flight, false when `timeoutMs` passed first (null: no deadline). */
  drained(timeoutMs: number | null): Promise<boolean>;
}

export interface ScheduleOutcome {
  readonly launched: number;
  readonly dropped: number;
  /** True when stopped by stop() rather than by its limits. */
  readonly stoppedEarly: boolean;
}
