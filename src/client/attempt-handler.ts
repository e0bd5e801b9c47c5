/**
 * One HTTP attempt of a request (of the API its client speaks: apis/) as an undici dispatch handler (the new handler API:
 * onRequestStart / onResponseStart / onResponseData / onResponseEnd / onResponseError). It writes the
 * raw facts into the RequestRecord as bytes arrive: no fetch, no Readable, SSE decoded incrementally,
 * JSON.parse only of data payloads. It settles exactly once (success, server error, socket error,
 * timeout or abort) and never throws into undici.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { HEADER } from '../protocol/headers.js';
import { arrivalUs } from '../util/arrival-clock.js';
import type { Clock } from '../util/clock.js';
import { classifySocketError, classifyStatus } from './classify-error.js';
import type { ConnectTimings } from './connect-timing.js';
import { errorDetails } from './error-body.js';
import { isObject } from './json-shape.js';
import { markSent, type ErrorClass, type RequestRecord, type TimeoutPhase } from './request-record.js';
import { RequestDeadlines } from './request-deadlines.js';
import { StreamChunkParser } from './chunk-template.js';
import { SseDecoder, type SseEventSink } from './sse-decoder.js';
import type { ClientOptions } from './types.js';
import type { ApiReader } from './apis/api-reader.js';

/** Error bodies and non-streaming answers are kept as text; beyond this a body is cut (and then fails to parse). */
const MAX_BUFFERED_BODY_BYTES = 16 * 1024 * 1024;
/** Of an error body only the message matters. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** What the client shares with every attempt. */
export interface AttemptContext {
  readonly timeouts: ClientOptions['timeouts'];
  /** The client's clock: every timestamp of the record, and the deadlines' timers. */
  readonly clock: Clock;
  /** Removes the API key from a message and shortens it. */
  readonly scrub: (message: string) => string;
  /** True once the client is closing: errors then mean "aborted", not a server failure. */
  readonly isClosed: () => boolean;
  /** Reads the responses of the API the client speaks (apis/api-readers.ts). */
  readonly api: ApiReader;
}

/** A RequestPlan encoded for the wire (payload bytes, final headers) once, and sent by each attempt. */
export interface EncodedRequest {
  readonly payload: string | Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
  /** body.stream was true: a body without an SSE content type is still read as a stream. */
  readonly stream: boolean;
}

/** What the retry layer needs to know about a finished attempt. */
export interface AttemptOutcome {
  /** The server's `retry-after` in milliseconds; NaN when absent. */
  readonly retryAfterMs: number;
}

type BodyMode = 'none' | 'sse' | 'json' | 'error' | 'wrong_type';

/**
 * A 200 whose declared type is neither a stream nor JSON (an HTML error page of a proxy, plain text): its
 * own error class, never read as a stream. No content-type at all is read as before (some servers omit it).
 */
function isWrongContentType(contentType: string): boolean {
  if (contentType === '') return false;
  const type = contentType.toLowerCase();
  return !type.includes('event-stream') && !type.includes('json');
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Seconds (possibly fractional) or an HTTP date, to milliseconds; NaN when absent or unreadable. */
function parseRetryAfterMs(value: string | undefined): number {
  if (value === undefined || value === '') return Number.NaN;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : Number.NaN;
}

/** The rate-limit headers read, per minute first (names built once, not per response). */
const RATE_LIMIT_HEADERS = {
  requests: ['x-ratelimit-remaining-requests-minute', 'x-ratelimit-remaining-requests'],
  tokens: ['x-ratelimit-remaining-tokens-minute', 'x-ratelimit-remaining-tokens'],
} as const;

/** At or above this, a rate-limit header means "unlimited" (the emulator sends 1,000,000,000). */
const UNLIMITED_REMAINING = 1_000_000_000;

function rateLimitHeader(
  headers: Record<string, string | string[] | undefined>,
  resource: 'requests' | 'tokens',
): number {
  const [perMinute, plain] = RATE_LIMIT_HEADERS[resource];
  const value = headerValue(headers, perMinute) ?? headerValue(headers, plain);
  if (value === undefined || value.trim() === '') return Number.NaN;
  const remaining = Number(value);
  // The service reports an unlimited resource with a huge limit: no headroom to chart.
  return remaining >= UNLIMITED_REMAINING ? Number.NaN : remaining;
}

/** The handler of one attempt; `done` resolves when it has settled (never rejects). */
export class AttemptHandler implements Dispatcher.DispatchHandler, SseEventSink {
  readonly done: Promise<AttemptOutcome>;
  readonly #record: RequestRecord;
  readonly #context: AttemptContext;
  readonly #clock: Clock;
  readonly #api: ApiReader;
  readonly #streamRequested: boolean;
  /** First attempt: its send time is the record's `sentUs`. */
  readonly #measuresSend: boolean;
  #startedUs = Number.NaN;
  readonly #deadlines: RequestDeadlines;
  #resolve!: (outcome: AttemptOutcome) => void;
  #controller: Dispatcher.DispatchController | null = null;
  #settled = false;
  #mode: BodyMode = 'none';
  /** The content-type of a 'wrong_type' answer, for its message. */
  #contentType = '';
  #decoder: SseDecoder | null = null;
  /** Parses this stream's data payloads (JSON.parse skipped for a repeated chunk shape). */
  #chunks: StreamChunkParser | null = null;
  /** Non-SSE bodies as text: a StringDecoder keeps characters split across reads whole, no Buffer list. */
  #bodyDecoder: StringDecoder | null = null;
  #bodyText = '';
  #bodyBytes = 0;
  #retryAfterMs = Number.NaN;
  #sawDone = false;
  /** Arrival time of the read being decoded: every event of one read arrived together. */
  #readUs = 0;
  /** Gives the connection back once undici is done with it (response ended or failed), once. */
  #release: (() => void) | null = null;
  /** The slot's timings of a connection it opened; taken when this attempt is written or fails. */
  #connectTimings: ConnectTimings | null = null;

  constructor(record: RequestRecord, context: AttemptContext, streamRequested: boolean, measuresSend: boolean) {
    this.#record = record;
    this.#context = context;
    this.#streamRequested = streamRequested;
    this.#measuresSend = measuresSend;
    this.#clock = context.clock;
    this.#api = context.api;
    this.#deadlines = new RequestDeadlines(context.timeouts, context.clock, (phase, limitMs) =>
      this.#fail('timeout', phase, `${phase} timeout after ${limitMs} ms`),
    );
    this.done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** Call right before dispatching: the deadlines run from here (pool queueing counts as connect). */
  started(atUs: number): void {
    this.#startedUs = atUs;
    this.#deadlines.start(atUs);
  }

  /** True once the attempt has ended (a connection found later is not used for it). */
  get settled(): boolean {
    return this.#settled;
  }

  /**
   * `release` is called once, when undici is done with the connection this attempt was dispatched on:
   * after the response's end or error, which may come after the attempt settled ([DONE], a failure).
   */
  onConnectionDone(release: () => void): void {
    this.#release = release;
  }

  /** The connection slot this attempt is dispatched on: a connection it opens has its timings there. */
  useConnectTimings(timings: ConnectTimings): void {
    this.#connectTimings = timings;
  }

  #takeConnectTimings(): void {
    const timings = this.#connectTimings;
    this.#connectTimings = null;
    timings?.takeInto(this.#record);
  }

  #releaseConnection(): void {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  /** Ends the attempt now as a timeout of phase `total` (graceful-stop expiry), without the server. */
  abort(message: string): void {
    this.#fail('timeout', 'total', message);
  }

  /** The dispatch itself threw (bad options): recorded, never thrown. */
  dispatchFailed(error: unknown): void {
    this.onResponseError(null, error instanceof Error ? error : new Error(String(error)));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Settled already (timed out in the pool queue, or aborted): do not send it now.
    if (this.#settled) {
      controller.abort(new Error('inferbench: attempt already ended'));
      return;
    }
    // The request is being written to its socket now: that, not the dispatch call (undici may queue it
    // a tick while a keep-alive connection is released), is when it was sent.
    if (this.#measuresSend) markSent(this.#record, this.#clock.nowUs());
    this.#takeConnectTimings();
    this.#deadlines.connected();
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#controller = controller;
    if (this.#settled) return;
    // 1xx informational responses are followed by the real one.
    if (statusCode < 200) return;
    const atUs = arrivalUs(this.#clock);
    const record = this.#record;
    record.headersUs = atUs;
    record.status = statusCode;
    record.rateLimitRemainingRequests = rateLimitHeader(headers, 'requests');
    record.rateLimitRemainingTokens = rateLimitHeader(headers, 'tokens');
    record.serverRequestId =
      headerValue(headers, HEADER.requestId) ?? headerValue(headers, HEADER.anthropicRequestId) ?? null;
    this.#retryAfterMs = parseRetryAfterMs(headerValue(headers, HEADER.retryAfter));
    this.#deadlines.headersReceived(atUs);
    if (classifyStatus(statusCode) !== null) {
      this.#mode = 'error';
      this.#bodyDecoder = new StringDecoder('utf8');
      return;
    }
    const contentType = headerValue(headers, HEADER.contentType) ?? '';
    if (isWrongContentType(contentType)) {
      this.#mode = 'wrong_type';
      this.#contentType = contentType;
      this.#bodyDecoder = new StringDecoder('utf8');
      return;
    }
    if (contentType.includes('text/event-stream') || (this.#streamRequested && !contentType.includes('json'))) {
      this.#mode = 'sse';
      this.#decoder = new SseDecoder(this);
      this.#chunks = new StreamChunkParser(this.#api.textSlot);
    } else {
      this.#mode = 'json';
      this.#bodyDecoder = new StringDecoder('utf8');
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    const atUs = arrivalUs(this.#clock);
    this.#deadlines.data(atUs);
    if (this.#mode === 'sse') {
      this.#readUs = atUs;
      this.#decoder?.push(chunk);
      return;
    }
    const decoder = this.#bodyDecoder;
    if (decoder === null) return;
    const limit = this.#mode === 'json' ? MAX_BUFFERED_BODY_BYTES : MAX_ERROR_BODY_BYTES;
    if (this.#bodyBytes >= limit) return;
    this.#bodyText += decoder.write(chunk);
    this.#bodyBytes += chunk.length;
  }

  onResponseEnd(): void {
    this.#releaseConnection();
    if (this.#settled) return;
    const atUs = arrivalUs(this.#clock);
    switch (this.#mode) {
      case 'sse':
        this.#readUs = atUs;
        this.#decoder?.end();
        if (this.#settled) return;
        if (this.#record.finishReason === null && !this.#sawDone) {
          this.#fail('stream_truncated', null, 'stream ended before finish_reason or [DONE]');
          return;
        }
        this.#succeed(atUs);
        return;
      case 'json':
        this.#endJsonBody(atUs);
        return;
      case 'error':
        this.#endErrorBody();
        return;
      case 'wrong_type':
        this.#endWrongType();
        return;
      case 'none':
        this.#fail('reset', null, 'response ended before its headers');
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.#releaseConnection();
    if (this.#settled) return;
    // A connection that failed to open (refused, TLS) still says how far it got.
    this.#takeConnectTimings();
    if (this.#context.isClosed()) {
      this.#fail('timeout', 'total', 'client closed');
      return;
    }
    const { errorClass, timeoutPhase } = classifySocketError(error);
    const code = (error as { code?: unknown }).code;
    const label = typeof code === 'string' ? `${code}: ${error.message}` : error.message;
    this.#fail(errorClass, timeoutPhase, label);
  }

  /** One SSE event (SseEventSink). */
  onSseEvent(data: string, event: string): void {
    const chunks = this.#chunks;
    if (this.#settled || chunks === null) return;
    const atUs = this.#readUs;
    if (event === 'error') {
      this.#streamError(data);
      return;
    }
    if (data === '[DONE]') {
      // A marker, not a chunk: chunkCount counts JSON events only.
      this.#sawDone = true;
      // The end marker is the end of the response: e2e stops here; the connection drains on its own.
      this.#succeed(atUs);
      return;
    }
    let chunk: unknown;
    try {
      chunk = chunks.parse(data);
    } catch {
      this.#fail('bad_chunk', null, `unparseable data payload: ${data.slice(0, 80)}`);
      return;
    }
    if (!isObject(chunk)) {
      this.#fail('bad_chunk', null, `data payload is not a JSON object: ${data.slice(0, 80)}`);
      return;
    }
    const record = this.#record;
    record.chunkCount += 1;
    if (Number.isNaN(record.firstChunkUs)) record.firstChunkUs = atUs;
    if (chunk['error'] !== undefined && chunk['error'] !== null) {
      this.#streamErrorFrom(chunk);
      return;
    }
    const failure = this.#api.streamError?.(chunk) ?? null;
    if (failure !== null) {
      record.errorCode = failure.code;
      this.#fail('stream_error', null, failure.message ?? 'error event in stream');
      return;
    }
    const choices = chunk['choices'];
    if (Array.isArray(choices) && choices.length > 0) {
      record.choiceChunkCount += 1;
      record.lastChoiceUs = atUs;
    }
    const hadToken = !Number.isNaN(record.firstTokenUs);
    this.#api.applyStreamEvent(record, chunk, atUs);
    if (!hadToken && !Number.isNaN(record.firstTokenUs)) this.#deadlines.firstToken();
  }

  #streamError(data: string): void {
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(data);
    } catch {
      // `event: error` with a plain-text payload: the text is the message.
    }
    if (isObject(parsed)) {
      this.#streamErrorFrom(parsed);
      return;
    }
    this.#fail('stream_error', null, data.length > 0 ? data : 'error event in stream');
  }

  #streamErrorFrom(body: Record<string, unknown>): void {
    const details = errorDetails(body);
    this.#record.errorCode = details.code;
    this.#fail('stream_error', null, details.message ?? 'error event in stream');
  }

  #endJsonBody(atUs: number): void {
    const text = this.#takeBody();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      this.#fail('bad_chunk', null, `response body is not JSON: ${text.slice(0, 80)}`);
      return;
    }
    if (!isObject(body)) {
      this.#fail('bad_chunk', null, 'response body is not a JSON object');
      return;
    }
    if (body['error'] !== undefined && body['error'] !== null) {
      this.#record.firstChunkUs = atUs;
      this.#streamErrorFrom(body);
      return;
    }
    this.#record.chunkCount = 1;
    this.#api.applyBody(this.#record, body, atUs);
    const problem = this.#api.bodyProblem?.(this.#record, body) ?? null;
    if (problem !== null) {
      this.#record.errorCode = problem.code;
      this.#fail('bad_chunk', null, problem.message);
      return;
    }
    this.#succeed(atUs);
  }

  #endWrongType(): void {
    const expected = this.#streamRequested ? 'text/event-stream' : 'application/json';
    const excerpt = (this.#bodyText + (this.#bodyDecoder?.end() ?? '')).replace(/\s+/g, ' ').trim().slice(0, 120);
    const status = this.#record.status;
    this.#fail(
      'wrong_content_type',
      null,
      `${status} answer with content-type "${this.#contentType}", expected ${expected}${excerpt ? `: ${excerpt}` : ''}`,
    );
  }

  #endErrorBody(): void {
    const record = this.#record;
    const errorClass = classifyStatus(record.status) ?? 'http_4xx';
    const text = this.#takeBody();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      // A non-JSON error page (a proxy's HTML): its first characters are the message.
    }
    const details = errorDetails(parsed);
    record.errorCode = details.code;
    const fallback = text.trim().length > 0 ? text.trim().slice(0, 120) : `HTTP ${record.status}`;
    this.#fail(errorClass, null, details.message ?? fallback);
  }

  #takeBody(): string {
    const text = this.#bodyDecoder === null ? this.#bodyText : this.#bodyText + this.#bodyDecoder.end();
    this.#bodyDecoder = null;
    this.#bodyText = '';
    return text;
  }

  /** Never written to a socket (no connection, aborted first): the dispatch time stands in. */
  #fillSentUs(): void {
    if (this.#measuresSend)
      markSent(this.#record, Number.isNaN(this.#startedUs) ? this.#clock.nowUs() : this.#startedUs);
  }

  #succeed(atUs: number): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#fillSentUs();
    this.#deadlines.stop();
    this.#record.endUs = atUs;
    this.#resolve({ retryAfterMs: this.#retryAfterMs });
  }

  /** Records a failure and ends the attempt; the connection is cut unless the response already ended. */
  #fail(errorClass: ErrorClass, timeoutPhase: TimeoutPhase | null, message: string): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#fillSentUs();
    this.#deadlines.stop();
    const record = this.#record;
    record.endUs = this.#clock.nowUs();
    record.errorClass = errorClass;
    record.timeoutPhase = timeoutPhase;
    record.errorMessage = this.#context.scrub(message);
    this.#bodyDecoder = null;
    this.#bodyText = '';
    this.#decoder = null;
    this.#chunks = null;
    const controller = this.#controller;
    // After the response completed or errored undici ignores the abort, so the keep-alive connection
    // survives; mid-response it cuts the socket (the rest of that response is not wanted).
    if (controller !== null && !controller.aborted) {
      controller.abort(new Error(`inferbench: ${errorClass}`));
    }
    this.#resolve({ retryAfterMs: this.#retryAfterMs });
  }
}
