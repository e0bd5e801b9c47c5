/**
 * The per-request values of one requests.csv row, from a RequestRecord, through the pure functions of
 * measure/ (the same definitions the collector aggregates): latencies in ms, token counts from usage
 * (or flagged as estimated; counted once per request and handed in), the server's time_info. null where the request never got that far.
 */
import type { RequestRecord } from '../client/request-record.js';
import { e2eMs, itlGapCount, scheduleLagMs, tpotMs, decodeTps, ttfbMs, ttftMs, ttfoMs } from '../measure/request-timings.js';
import { clientOverheadMs, completionTimeMs, promptTimeMs, queueTimeMs, totalTimeMs } from '../measure/server-timings.js';
import type { TokenCounts } from '../measure/token-counts.js';
import { connectMs, tlsHandshakeMs } from '../measure/connection-timings.js';

export interface RequestMetrics {
  scheduleLagMs: number | null;
  /** TCP connect and TLS handshake of the connection the request opened; null on a reused connection. */
  connectMs: number | null;
  tlsHandshakeMs: number | null;
  ttfbMs: number | null;
  ttftMs: number | null;
  ttfoMs: number | null;
  /** Start -> end of the response, or -> the failure for a failed request. */
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

/** `tokens`: the request's counts, made once when it finished (the collector aggregates the same). */
export function requestMetrics(record: RequestRecord, tokens: TokenCounts): RequestMetrics {
  const times = record.tokenChunkTimesUs;
  let itlMaxUs = 0;
  for (let i = 1; i < times.length; i++) itlMaxUs = Math.max(itlMaxUs, (times[i] as number) - (times[i - 1] as number));
  const gaps = itlGapCount(record);
  return {
    scheduleLagMs: value(scheduleLagMs(record)),
    connectMs: value(connectMs(record)),
    tlsHandshakeMs: value(tlsHandshakeMs(record)),
    ttfbMs: value(ttfbMs(record)),
    ttftMs: value(ttftMs(record)),
    ttfoMs: value(ttfoMs(record)),
    e2eMs: value(e2eMs(record)),
    tpotMs: value(tpotMs(record, tokens.output)),
    itlMeanMs: gaps > 0 ? ((times[times.length - 1] as number) - (times[0] as number)) / gaps / 1000 : null,
    itlMaxMs: gaps > 0 ? itlMaxUs / 1000 : null,
    decodeTps: value(decodeTps(record, tokens.output)),
    inputTokens: value(tokens.input),
    outputTokens: value(tokens.output),
    reasoningTokens: value(tokens.reasoning),
    cachedTokens: value(tokens.cached),
    tokensEstimated: tokens.estimated,
    queueTimeMs: value(queueTimeMs(record)),
    promptTimeMs: value(promptTimeMs(record)),
    completionTimeMs: value(completionTimeMs(record)),
    totalTimeMs: value(totalTimeMs(record)),
    clientOverheadMs: value(clientOverheadMs(record)),
  };
}

function value(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}
