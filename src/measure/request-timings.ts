/**
 * The client-side latencies of one request, as DESIGN.md "What is measured" defines them: pure functions
 * of a RequestRecord, integer microseconds in, milliseconds out. Every latency runs from the start: the
 * scheduled time in open loop (client lateness is never hidden), the socket write in closed loop (where
 * the client's path to the socket is schedule lag, not the server's latency). NaN when the request never
 * reached that point (no headers, no generated text, ...).
 */
import type { RequestRecord } from '../client/request-record.js';

function sinceStartMs(record: RequestRecord, atUs: number): number {
  return (atUs - record.intendedStartUs) / 1000;
}

/** start -> response headers. */
export function ttfbMs(record: RequestRecord): number {
  return sinceStartMs(record, record.headersUs);
}

/** start -> first chunk with non-empty generated text (content, reasoning or tool-call arguments); role-only chunks do not count. */
export function ttftMs(record: RequestRecord): number {
  return sinceStartMs(record, record.firstTokenUs);
}

/** start -> first chunk with answer content or a tool call (reasoning excluded). */
export function ttfoMs(record: RequestRecord): number {
  return sinceStartMs(record, record.firstOutputUs);
}

/** start -> end of the response (end marker or end of body). */
export function e2eMs(record: RequestRecord): number {
  return sinceStartMs(record, record.endUs);
}

/** Actual send - launch: how late the client was (harness health, not server latency). */
export function scheduleLagMs(record: RequestRecord): number {
  return (record.sentUs - record.launchUs) / 1000;
}

/** Number of inter-token gaps: one less than the chunks carrying generated text. */
export function itlGapCount(record: RequestRecord): number {
  return Math.max(0, record.tokenChunkTimesUs.length - 1);
}

/** Every gap (ms) between consecutive chunks carrying generated text. Allocates: not for the hot path. */
export function itlGapsMs(record: RequestRecord): number[] {
  const times = record.tokenChunkTimesUs;
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i++) gaps.push(((times[i] as number) - (times[i - 1] as number)) / 1000);
  return gaps;
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
export function tpotMs(record: RequestRecord, outputTokens: number): number {
  if (!(outputTokens >= 2) || !decodeObserved(record)) return Number.NaN;
  const decodeMs = (record.endUs - record.firstTokenUs) / 1000;
  return decodeMs >= 0 ? decodeMs / (outputTokens - 1) : Number.NaN;
}

/** (output_tokens - 1) / (e2e - ttft), tokens per second, under the same conditions as tpot; else NaN. */
export function decodeTps(record: RequestRecord, outputTokens: number): number {
  if (!(outputTokens >= 2) || !decodeObserved(record)) return Number.NaN;
  const decodeS = (record.endUs - record.firstTokenUs) / 1_000_000;
  return decodeS > 0 ? (outputTokens - 1) / decodeS : Number.NaN;
}
