/**
 * The garbage-collection pauses of inferbench under test that fell in the measured part of a round:
 * from its first measured socket write to its last measured request's end (its own performance.now()
 * clock, that of the perf_hooks 'gc' entries). Start-up and warmup collections (the heap growing to its
 * working size, the tokenizer's tables among it) are left out, as they are out of the numbers.
 */
import type { ClientRoundResult, GcPause } from './accuracy-client-job.js';

export interface MeasuredGc {
  /** Pauses longer than `overMs` in the measured part. */
  readonly over: number;
  /** Every pause in the measured part. */
  readonly count: number;
  readonly totalMs: number;
  readonly longest: GcPause | null;
  /** The pauses of 1 ms or more, for the JSON. */
  readonly long: GcPause[];
}

/** The measured part's pauses, counting those longer than `overMs`. */
export function measuredGc(round: ClientRoundResult, overMs: number): MeasuredGc {
  let fromMs = Number.POSITIVE_INFINITY;
  let toMs = Number.NEGATIVE_INFINITY;
  for (const request of round.requests) {
    if (request.sentUs / 1000 < fromMs) fromMs = request.sentUs / 1000;
    if (request.endUs / 1000 > toMs) toMs = request.endUs / 1000;
  }
  const inside = round.gcPauses.filter((p) => p.startMs + p.durationMs >= fromMs && p.startMs <= toMs);
  let longest: GcPause | null = null;
  for (const pause of inside) if (longest === null || pause.durationMs > longest.durationMs) longest = pause;
  return {
    over: inside.filter((p) => p.durationMs > overMs).length,
    count: inside.length,
    totalMs: inside.reduce((sum, p) => sum + p.durationMs, 0),
    longest,
    long: inside.filter((p) => p.durationMs >= 1),
  };
}
