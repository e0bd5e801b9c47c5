/**
 * Lines up a worker thread's clocks with the main thread's (`run --workers`). performance.now() counts
 * from the start of its own thread (and `performance.timeOrigin + performance.now()` was measured 1.1 ms
 * apart between two threads of one process), but process.hrtime is one monotonic clock for the whole
 * process: each thread reads (hrtime - performance.now()), and the difference of the two readings is how
 * far apart their performance.now() origins lie. Here because it reads `process`, which only cli/ may.
 */
import { alignMonotonicOrigin } from '../util/clock.js';

/** Reads per estimate: the pair read closest together wins (a preemption between two reads is rare). */
const READS = 64;

/** This thread's (process.hrtime - performance.now()), in ms, to about a microsecond. */
export function monotonicAnchorMs(): number {
  let bestSpanNs = Number.POSITIVE_INFINITY;
  let anchorMs = 0;
  for (let i = 0; i < READS; i++) {
    const before = process.hrtime.bigint();
    const now = performance.now();
    const after = process.hrtime.bigint();
    const spanNs = Number(after - before);
    if (spanNs < bestSpanNs) {
      bestSpanNs = spanNs;
      anchorMs = Number((before + after) / 2n) / 1e6 - now;
    }
  }
  return anchorMs;
}

/** In a worker thread: shifts util/clock.ts onto the main thread whose anchor is `mainAnchorMs`. */
export function alignWithMainThread(mainAnchorMs: number): void {
  // main now = hrtime - mainAnchor = (this now + thisAnchor) - mainAnchor.
  alignMonotonicOrigin(monotonicAnchorMs() - mainAnchorMs);
}
