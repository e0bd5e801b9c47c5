/**
 * When data read from sockets arrived, as nearly as JavaScript can tell: the time the event loop began
 * handling the batch of ready sockets it was read in.
 *
 * Why: the loop wakes once for every socket that became readable while it slept or worked, then runs
 * their callbacks one after another. Stamping each read with the time its own callback runs would add the
 * client's work on the sockets before it (parsing, recording, relaunching) to that response's latency: with
 * 256 streams whose chunks come together, the last one is stamped milliseconds late, and the harness would
 * report its own queueing as the server's. The data of every socket in the batch was there when the batch
 * began, so that is the time they all get (what a kernel receive timestamp approximates).
 *
 * A batch is the run of I/O callbacks of one poll phase: it ends at the next check phase (a setImmediate)
 * or, should a stamp ever be asked for outside the poll phase, the next time the loop sleeps (its idle
 * time grows). Use it for arrivals only; times of the harness's own actions (launch, send) use clock.nowUs().
 */
import { performance } from 'node:perf_hooks';
import { systemClock, type Clock } from './clock.js';

let batchUs = 0;
let batchIdleMs = -1;
let batchOpen = false;
/** The clock the open batch was stamped on (the client's: one per run). */
let batchClock: Clock = systemClock;
/** How long the last closed batch of reads took to handle (ms), up to the check phase that closed it. */
let lastBatchMs = 0;
let batchesClosed = 0;

const closeBatch = (): void => {
  batchOpen = false;
  lastBatchMs = (batchClock.nowUs() - batchUs) / 1000;
  batchesClosed++;
};

/**
 * How busy reading is: how long the event loop spent on the most recent batch of socket reads (ms),
 * and how many batches have closed so far (a caller that saw the same count before has seen no reads
 * since).
 */
export function readBatchStats(): { readonly lastBatchMs: number; readonly batchesClosed: number } {
  return { lastBatchMs, batchesClosed };
}

/** Microseconds on `clock` (its nowUs() scale) at which the current batch of socket reads began. */
export function arrivalUs(clock: Clock): number {
  // nodeTiming.idleTime is what eventLoopUtilization().idle reads, without its clock read and object.
  const idleMs = performance.nodeTiming.idleTime;
  if (batchOpen && idleMs === batchIdleMs && clock === batchClock) return batchUs;
  batchUs = clock.nowUs();
  batchClock = clock;
  batchIdleMs = idleMs;
  if (!batchOpen) {
    batchOpen = true;
    setImmediate(closeBatch);
  }
  return batchUs;
}
