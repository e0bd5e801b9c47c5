/**
 * TTFT error on the wire's terms, the same for every client under test: a request is found in the
 * known-timing server's traces (inferbench's by its body, the comparator's by the marker in its prompt),
 * and its error is the TTFT the client reports minus what really happened on the wire, from the moment
 * the client handed the request to its socket to the moment the server wrote the first token (both on
 * CLOCK_MONOTONIC). A client whose TTFT starts before its socket write (vLLM's starts before the POST)
 * carries that wait in its error; one that stamps the token late carries the lateness.
 *
 * Also kept, to see where an error comes from: the error against the server's own view (from when its
 * event loop noticed the request, leaving out time spent waiting in the server's socket), the client's
 * wait from its TTFT start to the socket, and from the server's write to the client's stamp.
 */
import { median, quantile } from './accuracy-quantiles.js';
import type { ClientRoundResult } from './accuracy-client-job.js';
import type { VllmRequest } from './accuracy-vllm-job.js';
import type { RequestTrace } from '../test/helpers/known-timing/known-timing-stats.js';

/** One matched request, ms. */
interface TtftSample {
  /** Reported TTFT - (server's first-token write - client's socket write). */
  readonly errorMs: number;
  /** Reported TTFT - (server's first-token write - server noticed the request). */
  readonly serverViewErrorMs: number;
  /** The client's TTFT start -> its socket write. */
  readonly sendWaitMs: number;
  /** The server's first-token write -> the client's stamp of it. */
  readonly readLagMs: number;
}

/** One client's round: counts, and quantiles of |error| and of its parts (ms). */
export interface TtftErrorSummary {
  readonly requests: number;
  readonly matched: number;
  readonly failed: number;
  readonly errorP50Ms: number;
  readonly errorP99Ms: number;
  readonly errorMaxMs: number;
  readonly serverViewErrorP50Ms: number;
  readonly serverViewErrorP99Ms: number;
  readonly sendWaitP50Ms: number;
  readonly sendWaitP99Ms: number;
  readonly readLagP50Ms: number;
  readonly readLagP99Ms: number;
}

/** Traces by a key; a key seen twice cannot tell its requests apart, so neither is used. */
function tracesBy(traces: readonly RequestTrace[], keyOf: (trace: RequestTrace) => string | null) {
  const byKey = new Map<string, RequestTrace | null>();
  for (const trace of traces) {
    const key = keyOf(trace);
    if (key !== null) byKey.set(key, byKey.has(key) ? null : trace);
  }
  return byKey;
}

function sample(ttftMs: number, startMs: number, sentMs: number, firstStampMs: number, trace: RequestTrace) {
  return {
    errorMs: ttftMs - (trace.firstTokenWrittenAtMs - sentMs),
    serverViewErrorMs: ttftMs - (trace.firstTokenWrittenAtMs - trace.arrivedAtMs),
    sendWaitMs: sentMs - startMs,
    readLagMs: firstStampMs - trace.firstTokenWrittenAtMs,
  };
}

/** inferbench's measured requests against the traces (its stamps are performance.now() µs of its process). */
export function inferbenchTtftError(round: ClientRoundResult, traces: readonly RequestTrace[]): TtftErrorSummary {
  const byBody = tracesBy(traces, (trace) => trace.body);
  const samples: TtftSample[] = [];
  let failed = 0;
  for (const request of round.requests) {
    const trace = byBody.get(request.body);
    if (!request.ok) failed++;
    if (!request.ok || trace === undefined || trace === null) continue;
    const at = (us: number): number => us / 1000 + round.offsetMs;
    const ttftMs = request.ttftUs / 1000;
    // In closed loop the TTFT starts at the socket write: start and send are the same stamp.
    const startMs = at(request.firstTokenUs) - ttftMs;
    samples.push(sample(ttftMs, startMs, at(request.sentUs), at(request.firstTokenUs), trace));
  }
  return summarize(samples, round.requests.length, failed);
}

/** The marker in a comparator request's prompt (messages[0].content[0].text), or null for anyone else's. */
function promptMarker(trace: RequestTrace): string | null {
  try {
    const body = JSON.parse(trace.body) as { messages?: { content?: unknown }[] };
    const content = body.messages?.[0]?.content;
    if (!Array.isArray(content)) return null;
    const text = (content[0] as { text?: unknown } | undefined)?.text;
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}

/** The comparator's measured requests (CLOCK_MONOTONIC ms) against the traces. */
export function vllmTtftError(requests: readonly VllmRequest[], traces: readonly RequestTrace[]): TtftErrorSummary {
  const byMarker = tracesBy(traces, promptMarker);
  const samples: TtftSample[] = [];
  let failed = 0;
  for (const request of requests) {
    const trace = byMarker.get(request.marker);
    const { startMs, sentMs, firstMs } = request;
    if (!request.ok) failed++;
    if (!request.ok || trace === undefined || trace === null) continue;
    if (startMs === undefined || sentMs === undefined || firstMs === undefined) continue;
    samples.push(sample(firstMs - startMs, startMs, sentMs, firstMs, trace));
  }
  return summarize(samples, requests.length, failed);
}

function summarize(samples: readonly TtftSample[], requests: number, failed: number): TtftErrorSummary {
  const abs = (pick: (s: TtftSample) => number): number[] => samples.map((s) => Math.abs(pick(s)));
  const error = abs((s) => s.errorMs);
  const serverView = abs((s) => s.serverViewErrorMs);
  const sendWait = samples.map((s) => s.sendWaitMs);
  const readLag = samples.map((s) => s.readLagMs);
  return {
    requests,
    matched: samples.length,
    failed,
    errorP50Ms: median(error),
    errorP99Ms: quantile(error, 0.99),
    errorMaxMs: quantile(error, 1),
    serverViewErrorP50Ms: median(serverView),
    serverViewErrorP99Ms: quantile(serverView, 0.99),
    sendWaitP50Ms: median(sendWait),
    sendWaitP99Ms: quantile(sendWait, 0.99),
    readLagP50Ms: median(readLag),
    readLagP99Ms: quantile(readLag, 0.99),
  };
}
