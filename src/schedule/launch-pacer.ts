/**
 * Keeps closed-loop launches from hogging the event loop. When hundreds of streams end together (a
 * closed loop whose requests all take the same time stays in lockstep), relaunching them all at once
 * holds the loop for milliseconds (each launch builds and dispatches a request); every other stream's
 * chunk or end that arrives meanwhile is read, and stamped, late, and that would be reported as the
 * server's latency. So launches never run inside the reads that freed them: each waits for a check-phase
 * turn, and launches may use `sliceMs` of a turn, the rest going on after the next poll for I/O; in a
 * turn whose reads took long (util/arrival-clock.ts), only one launch goes.
 *
 * A closed-loop latency starts at the socket write, so a launch that waits a turn adds to schedule lag
 * only. A clock that stands still (tests' manual clock) never runs out of slice.
 */
import { readBatchStats } from '../util/arrival-clock.js';
import type { Clock } from '../util/clock.js';

/** Launch work allowed per event-loop turn before the rest yield to I/O. */
export const LAUNCH_SLICE_MS = 0.1;
/** A batch of reads longer than this means the loop is busy reading: one launch per turn only. */
const BUSY_READING_MS = 0.3;

export class LaunchPacer {
  readonly #clock: Clock;
  readonly #sliceMs: number;
  /** Launches waiting for their turn, oldest first (a queue with a moving head). */
  #waiting: ((() => void) | undefined)[] = [];
  #head = 0;
  #immediate: NodeJS.Immediate | null = null;
  #sliceStartMs = 0;
  /** Read batches closed when the last slice started (to see whether reads happened since). */
  #batchesSeen = readBatchStats().batchesClosed;

  constructor(clock: Clock, sliceMs = LAUNCH_SLICE_MS) {
    this.#clock = clock;
    this.#sliceMs = sliceMs;
  }

  /** Resolves when this launch's turn has come (never synchronously). */
  permit(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      this.#immediate ??= setImmediate(this.#startSlice);
    });
  }

  readonly #startSlice = (): void => {
    this.#immediate = null;
    this.#sliceStartMs = this.#clock.nowMs();
    // Reads come first: after a long batch of reads this turn (streams ending together), one launch and
    // the rest after the next poll, so data arriving meanwhile is read and stamped sooner.
    const reads = readBatchStats();
    if (reads.batchesClosed !== this.#batchesSeen && reads.lastBatchMs > BUSY_READING_MS)
      this.#sliceStartMs -= this.#sliceMs;
    this.#batchesSeen = reads.batchesClosed;
    this.#releaseNext();
  };

  #releaseNext(): void {
    const resolve = this.#waiting[this.#head];
    if (resolve === undefined) {
      this.#waiting = [];
      this.#head = 0;
      return;
    }
    this.#waiting[this.#head] = undefined;
    this.#head++;
    resolve();
    // Queued behind the released launch's continuation: runs once that launch has been dispatched.
    queueMicrotask(this.#afterLaunch);
  }

  readonly #afterLaunch = (): void => {
    if (this.#clock.nowMs() - this.#sliceStartMs < this.#sliceMs) this.#releaseNext();
    else if (this.#head < this.#waiting.length) this.#immediate ??= setImmediate(this.#startSlice);
  };
}
