/**
 * etalon's deadline-based metric, the fluidity index (Agrawal et al., "etalon: Holistic Performance
 * Evaluation Framework for LLM Inference Systems"; project-etalon/etalon, docs/tutorials/metrics_used.rst):
 * with a prefill deadline D_p (TTFT) and a decode deadline D_d (TBT), every token has a deadline. A token
 * that arrives early leaves slack that later tokens may use; a late one resets the slack to 0 and counts
 * as floor(lateness / D_d) missed deadlines (at least 1), since a stall of several D_d is several tokens
 * a reader did not get in time. fluidity_index = 1 - missed / total deadlines of the request.
 *
 * inferbench sees chunks, not tokens: each chunk carrying generated text (the same events as TTFT and
 * ITL) is one token event here. Pure: from the record's latency start, first-token time and chunk times.
 */
import type { RequestRecord } from '../client/request-record.js';

/** The profile's `deadlines:` in milliseconds (ResolvedProfile.deadlines). */
export interface FluidityDeadlines {
  readonly ttftMs: number;
  readonly tbtMs: number;
}

/** Deadlines of one request: how many it had and how many were missed. */
export interface DeadlineCount {
  missed: number;
  total: number;
}

/** Recorded value per unit of fluidity_index (metric-registry.ts scale): three decimals. */
const FLUIDITY_SCALE = 1000;

/**
 * etalon's deadline walk over the intervals between token events, in µs: `intervalsUs[0]` is the time
 * to the first token (against D_p), each next one the gap since the previous token (against D_d).
 * Fills and returns `out` (no allocation per request).
 */
export function countDeadlines(
  intervalsUs: ArrayLike<number>,
  ttftDeadlineUs: number,
  tbtDeadlineUs: number,
  out: DeadlineCount = { missed: 0, total: 0 },
): DeadlineCount {
  let slackUs = 0;
  out.missed = 0;
  out.total = 0;
  for (let i = 0; i < intervalsUs.length; i++) {
    const intervalUs = intervalsUs[i] as number;
    const deadlineUs = i === 0 ? ttftDeadlineUs : tbtDeadlineUs;
    if (intervalUs <= deadlineUs + slackUs) {
      slackUs += deadlineUs - intervalUs;
      out.total++;
      continue;
    }
    // The first token's own deadline is one miss; every whole D_d past it is one more.
    const misses =
      i === 0
        ? 1 + Math.floor((intervalUs - slackUs - ttftDeadlineUs) / tbtDeadlineUs)
        : Math.floor((intervalUs - slackUs) / tbtDeadlineUs);
    out.missed += misses;
    out.total += misses;
    slackUs = 0;
  }
  return out;
}

/** Intervals of a record's token events: its TTFT, then the gaps between chunks with text (its ITL gaps). */
function recordIntervals(record: RequestRecord, out: number[]): number[] {
  const times = record.tokenChunkTimesUs;
  out.length = times.length;
  out[0] = record.firstTokenUs - record.latencyStartUs;
  for (let i = 1; i < times.length; i++) out[i] = (times[i] as number) - (times[i - 1] as number);
  return out;
}

const scratchIntervals: number[] = [];
const scratchCount: DeadlineCount = { missed: 0, total: 0 };

/**
 * The request's fluidity index in its recorded unit (x 1000, floored so a value is never reported better
 * than it is: 0.8996 is 899, below a 0.9 objective); NaN without deadlines or without a streamed chunk
 * with text (a non-streaming answer shows no token timing).
 */
export function fluidityIndexRecorded(record: RequestRecord, deadlines: FluidityDeadlines | null): number {
  if (deadlines === null || record.tokenChunkTimesUs.length === 0) return Number.NaN;
  if (Number.isNaN(record.firstTokenUs - record.latencyStartUs)) return Number.NaN;
  const count = countDeadlines(
    recordIntervals(record, scratchIntervals),
    deadlines.ttftMs * 1000,
    deadlines.tbtMs * 1000,
    scratchCount,
  );
  if (count.total === 0) return Number.NaN;
  // Integer arithmetic: floor((met / total) x 1000) without a rounding error at exact fractions.
  return Math.floor(((count.total - count.missed) * FLUIDITY_SCALE) / count.total);
}
