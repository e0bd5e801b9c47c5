/**
 * The per-request values of one requests.csv row, from a RequestRecord: latencies in ms (DESIGN.md,
 * "What is measured"), token counts from usage (or flagged as estimated), the server's time_info.
 * null where the request never got that far.
 */
import type { RequestRecord } from '../client/request-record.js';
import { countTokens } from '../util/tokenizer.js';

export interface RequestMetrics {
  scheduleLagMs: number | null;
  ttfbMs: number | null;
  ttftMs: number | null;
  ttfoMs: number | null;
  e2eMs: number | null;
  tpotMs: number | null;
  itlMeanMs: number | null;
  itlMaxMs: number | null;
  decodeTps: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  reasoningTokens: number | null;
  cachedTokens: number | null;
  tokensEstimated: boolean;
  queueTimeMs: number | null;
  promptTimeMs: number | null;
  completionTimeMs: number | null;
  totalTimeMs: number | null;
  clientOverheadMs: number | null;
}

export function requestMetrics(record: RequestRecord): RequestMetrics {
  const start = record.intendedStartUs;
  const ok = record.errorClass === null;
  const ttftMs = since(start, record.firstTokenUs);
  const e2eMs = ok ? since(start, record.endUs) : null;
  const { usage, timeInfo } = record;
  let outputTokens: number | null = null;
  let inputTokens: number | null = null;
  let tokensEstimated = false;
  if (usage) {
    outputTokens = usage.completion_tokens;
    inputTokens = usage.prompt_tokens;
  } else if (ok) {
    tokensEstimated = true;
    outputTokens = countTokens(record.outputText) + (record.reasoningText ? countTokens(record.reasoningText) : 0);
    inputTokens = Number.isFinite(record.expectedInputTokens) ? record.expectedInputTokens : null;
  }
  const gaps = record.tokenChunkTimesUs;
  let itlSumUs = 0;
  let itlMaxUs = 0;
  for (let i = 1; i < gaps.length; i++) {
    const gap = (gaps[i] as number) - (gaps[i - 1] as number);
    itlSumUs += gap;
    if (gap > itlMaxUs) itlMaxUs = gap;
  }
  const decodeMs = e2eMs !== null && ttftMs !== null ? e2eMs - ttftMs : null;
  const multiToken = outputTokens !== null && outputTokens >= 2 && decodeMs !== null && decodeMs > 0;
  const totalTimeMs = timeInfo ? timeInfo.total_time * 1000 : null;
  return {
    scheduleLagMs: since(start, record.sentUs),
    ttfbMs: since(start, record.headersUs),
    ttftMs,
    ttfoMs: since(start, record.firstOutputUs),
    e2eMs,
    tpotMs: multiToken ? (decodeMs as number) / ((outputTokens as number) - 1) : null,
    itlMeanMs: gaps.length >= 2 ? itlSumUs / (gaps.length - 1) / 1000 : null,
    itlMaxMs: gaps.length >= 2 ? itlMaxUs / 1000 : null,
    decodeTps: multiToken ? ((outputTokens as number) - 1) / ((decodeMs as number) / 1000) : null,
    inputTokens,
    outputTokens,
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens ?? null,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? null,
    tokensEstimated,
    queueTimeMs: timeInfo ? timeInfo.queue_time * 1000 : null,
    promptTimeMs: timeInfo ? timeInfo.prompt_time * 1000 : null,
    completionTimeMs: timeInfo ? timeInfo.completion_time * 1000 : null,
    totalTimeMs,
    clientOverheadMs: totalTimeMs !== null && e2eMs !== null ? e2eMs - totalTimeMs : null,
  };
}

function since(startUs: number, atUs: number): number | null {
  return Number.isFinite(atUs) && Number.isFinite(startUs) ? (atUs - startUs) / 1000 : null;
}
