/**
 * The client-side latencies of one request, as DESIGN.md "What is measured" defines them: pure functions
 * of a RequestRecord, integer microseconds in, microseconds out (the unit histograms record; reports
 * divide by 1000 once, at the end). Every latency runs from the latency start (`latencyStartUs`): the
 * scheduled time in open loop (client lateness is never hidden), the socket write in closed loop (where
 * the client's path to the socket is schedule lag, not the server's latency). NaN when the request never
 * reached that point (no headers, no generated text, ...).
 */
import type { RequestRecord } from '../client/request-record.js';

function sinceStartUs(record: RequestRecord, atUs: number): number {
  return atUs - record.latencyStartUs;
}

/** start -> response headers. */
export function ttfbUs(record: RequestRecord): number {
  return sinceStartUs(record, record.headersUs);
}

/** start -> first chunk with non-empty generated text (content, reasoning or tool-call arguments); role-only chunks do not count. */
export function ttftUs(record: RequestRecord): number {
  return sinceStartUs(record, record.firstTokenUs);
}

/** start -> first chunk with answer content or a tool call (reasoning excluded). */
export function ttfoUs(record: RequestRecord): number {
  return sinceStartUs(record, record.firstOutputUs);
}

/** start -> end of the response (end marker or end of body), or -> the failure. */
export function e2eUs(record: RequestRecord): number {
  return sinceStartUs(record, record.endUs);
}

/** Actual send - launch: how late the client was (harness health, not server latency). The one place it is derived. */
export function scheduleLagUs(record: RequestRecord): number {
  return record.sentUs - record.launchUs;
}

/** Number of inter-token gaps: one less than the chunks carrying generated text. */
export function itlGapCount(record: RequestRecord): number {
  return Math.max(0, record.tokenChunkTimesUs.length - 1);
}

/** Gap `i` (0-based, below itlGapCount) between consecutive chunks carrying generated text: the one definition of an ITL gap. */
export function itlGapUs(record: RequestRecord, i: number): number {
  const times = record.tokenChunkTimesUs;
  return (times[i + 1] as number) - (times[i] as number);
}

/** Every gap between consecutive chunks carrying generated text. Allocates: not for the hot path. */
export function itlGapsUs(record: RequestRecord): number[] {
  return Array.from({ length: itlGapCount(record) }, (_, i) => itlGapUs(record, i));
}

/**
 * True when the decode phase was visible to the client: at least two chunks carried generated text. A
 * non-streaming response (or a stream that delivered all its text in one chunk) has no observable
 * decode time, so TPOT and decode tokens/s are not defined for it rather than reported as near zero.
 */
export function decodeObserved(record: RequestRecord): boolean {
  return record.tokenChunkTimesUs.length >= 2;
}

/** (e2e - ttft) / (output_tokens - 1), for at least 2 output tokens and an observed decode phase; else NaN. */
export function tpotUs(record: RequestRecord, outputTokens: number): number {
  if (!(outputTokens >= 2) || !decodeObserved(record)) return Number.NaN;
  const decodeUs = record.endUs - record.firstTokenUs;
  return decodeUs >= 0 ? decodeUs / (outputTokens - 1) : Number.NaN;
}

/** (output_tokens - 1) / (e2e - ttft), tokens per second, under the same conditions as tpot; else NaN. */
export function decodeTps(record: RequestRecord, outputTokens: number): number {
  if (!(outputTokens >= 2) || !decodeObserved(record)) return Number.NaN;
  const decodeS = (record.endUs - record.firstTokenUs) / 1_000_000;
  return decodeS > 0 ? (outputTokens - 1) / decodeS : Number.NaN;
}
