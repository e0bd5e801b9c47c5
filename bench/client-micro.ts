/**
 * In-process measurements of the client benchmark (run in the client child, on the client's core):
 *
 * - cost per event: prebuilt chunk bytes, one event per read, fed to the client's real response handler
 *   (client/attempt-handler.ts: arrival stamp, deadlines, SSE framing, JSON.parse, the record's token
 *   times and text), then each finished record through the runner's real after-path (record-finisher.ts:
 *   token accounting and its sampled usage check, measure/request-values.ts) into the real collector
 *   (aggregate/: HDR histograms, ITL per gap, counters, time series). CPU time divided by events. Only
 *   undici's HTTP parsing and the socket are left out: the client benchmark's events section has them.
 * - one 8 MiB event arriving in 1,460-byte pieces (a TCP segment each), through the same handler: from
 *   the first piece to the event parsed and applied.
 */
import type { Dispatcher } from 'undici';
import { API_READERS } from '../src/client/apis/api-readers.js';
import { AttemptHandler, type AttemptContext } from '../src/client/attempt-handler.js';
import { createRequestRecord } from '../src/client/request-record.js';
import { SseDecoder } from '../src/client/sse-decoder.js';
import { createRunCollector } from '../src/aggregate/run-collector.js';
import { resolveProfileText } from '../src/profile/load-profile.js';
import { RecordFinisher } from '../src/runner/record-finisher.js';
import { nowUs, systemClock } from '../src/util/clock.js';
import { o200kTokenizer } from '../src/util/tokenizer.js';
import { finalEvent, TOKEN_EVENT } from './client-target-bytes.js';
import { holdStreamsProfile } from './client-profiles.js';

/** A controller for a handler that is not on a socket: nothing to abort or pause. */
const CONTROLLER: Dispatcher.DispatchController = {
  aborted: false,
  paused: false,
  reason: null,
  abort: () => {},
  pause: () => {},
  resume: () => {},
};
const SSE_HEADERS = { 'content-type': 'text/event-stream' };

function benchProfile() {
  return resolveProfileText(holdStreamsProfile('http://127.0.0.1:9', 1), 'client-bench-micro.yaml');
}

function attemptContext(profile: ReturnType<typeof benchProfile>): AttemptContext {
  const scenario = profile.scenarios[0];
  if (scenario === undefined) throw new Error('the micro-benchmark profile has no scenario');
  return {
    timeouts: scenario.timeouts,
    clock: systemClock,
    scrub: (message) => message,
    isClosed: () => false,
    api: API_READERS.chat,
  };
}

export interface CostPerEvent {
  readonly requests: number;
  readonly eventsPerRequest: number;
  readonly events: number;
  readonly cpuUs: number;
  readonly usPerEvent: number;
}

/** `requests` streamed answers of `eventsPerRequest` token events each, one event per read (see the file comment). */
export async function measureCostPerEvent(requests: number, eventsPerRequest: number): Promise<CostPerEvent> {
  const profile = benchProfile();
  const context = attemptContext(profile);
  const collector = createRunCollector({ groups: profile.groups, slo: {}, runStartUs: nowUs() });
  const finisher = new RecordFinisher({
    tokenizer: o200kTokenizer(),
    deliver: (record, values) => collector.completed(record, values),
  });
  const event = Buffer.from(TOKEN_EVENT, 'utf8');
  const final = Buffer.from(finalEvent(eventsPerRequest), 'utf8');
  const role = Buffer.from('data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n');
  o200kTokenizer().count('warm');
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const record = createRequestRecord(i, 0, nowUs(), false, true);
    const handler = new AttemptHandler(record, context, true, true);
    record.attempts = 1;
    collector.started(0, nowUs());
    handler.started(nowUs());
    handler.onRequestStart(CONTROLLER);
    handler.onResponseStart(CONTROLLER, 200, SSE_HEADERS);
    handler.onResponseData(CONTROLLER, role);
    for (let e = 0; e < eventsPerRequest; e++) handler.onResponseData(CONTROLLER, event);
    handler.onResponseData(CONTROLLER, final);
    handler.onResponseEnd();
    finisher.push(record);
    // The finisher works in slices between turns of the loop, as in a run.
    if (i % 16 === 15) await finisher.drained();
  }
  await finisher.drained();
  const cpu = process.cpuUsage(cpuStart);
  const cpuUs = cpu.user + cpu.system;
  const events = requests * (eventsPerRequest + 2);
  const result = collector.finish(nowUs());
  const ok = result.groups[0]?.requests.ok ?? 0;
  if (ok !== requests) throw new Error(`micro-benchmark: ${ok} of ${requests} requests ok`);
  return { requests, eventsPerRequest, events, cpuUs, usPerEvent: cpuUs / events };
}

export interface BigEventParse {
  readonly bytes: number;
  readonly pieces: number;
  /** First piece to the event parsed and applied to the record, through the response handler. */
  readonly handlerMs: number;
  /** The SSE decoder alone (framing, no JSON). */
  readonly decoderMs: number;
}

/** One event of `bytes` bytes in pieces of `pieceBytes` (see the file comment). */
export function measureBigEvent(bytes: number, pieceBytes: number): BigEventParse {
  const prefix =
    'data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"';
  const suffix = '"},"finish_reason":null}]}\n\n';
  const text = prefix + 'x'.repeat(Math.max(0, bytes - prefix.length - suffix.length)) + suffix;
  const whole = Buffer.from(text, 'utf8');
  const pieces: Buffer[] = [];
  for (let at = 0; at < whole.length; at += pieceBytes) pieces.push(Buffer.from(whole.subarray(at, at + pieceBytes)));
  let delivered = 0;
  const decoder = new SseDecoder({ onSseEvent: () => delivered++ });
  const decoderStarted = performance.now();
  for (const piece of pieces) decoder.push(piece);
  const decoderMs = performance.now() - decoderStarted;
  if (delivered !== 1) throw new Error('the SSE decoder did not deliver the 8 MiB event');
  const context = attemptContext(benchProfile());
  const record = createRequestRecord(0, 0, nowUs(), false, true);
  const handler = new AttemptHandler(record, context, true, true);
  handler.started(nowUs());
  handler.onRequestStart(CONTROLLER);
  handler.onResponseStart(CONTROLLER, 200, SSE_HEADERS);
  const started = performance.now();
  for (const piece of pieces) handler.onResponseData(CONTROLLER, piece);
  const handlerMs = performance.now() - started;
  if (record.chunkCount !== 1 || record.outputText.length < bytes / 2)
    throw new Error('the 8 MiB event was not parsed');
  handler.abort('benchmark done');
  return { bytes: whole.length, pieces: pieces.length, handlerMs, decoderMs };
}
