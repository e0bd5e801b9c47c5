/**
 * The raw facts of one request, as the client saw them: monotonic timestamps (integer microseconds on the
 * process's performance.now() origin), counts, status, and what the server said (usage, time_info). Every
 * field is initialised (NaN / null / 0 when not reached) so records have one shape for V8. Derived
 * metrics (TTFT, ITL, TPOT, ...) are pure functions in measure/, never computed here.
 */
import type { TimeInfo, Usage } from '../protocol/chat.js';
import type { ErrorClass } from '../protocol/error-classes.js';
import type { AnswerCheckName } from '../metrics/check-summary.js';

export { ERROR_CLASSES, type ErrorClass } from '../protocol/error-classes.js';

/** One tool call of an answer: `arguments` is the raw string the server sent (JSON, unless it erred). */
export interface ReceivedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The result of one answer check of one request: a failed check is not an HTTP error. */
export interface AnswerCheck {
  name: AnswerCheckName;
  passed: boolean;
  /** Why it failed (short); null when it passed. */
  message: string | null;
}

/** Which wait ran out, for `timeout` errors. */
export type TimeoutPhase = 'connect' | 'headers' | 'first_token' | 'idle' | 'total';

export interface RequestRecord {
  /** Sequence number within the run (0-based, in order of intended start). */
  id: number;
  /** Index of the group (scenario x model x tier) in the resolved plan. */
  groupIndex: number;
  /** True for warmup requests: sent, recorded in requests.csv with warmup=1, never aggregated. */
  warmup: boolean;
  /** When the schedule launched it: the scheduled arrival in open loop, the worker's launch in closed loop. */
  launchUs: number;
  /**
   * Start of every latency. Open loop: the scheduled arrival (= launchUs), so the client's lateness is in
   * every latency. Closed loop: the socket write (= sentUs; NaN until then), since there is no schedule to
   * be late against and the harness's own path to the socket is not the server's latency.
   */
  latencyStartUs: number;
  /** When the request was actually handed to the socket layer. */
  sentUs: number;
  /** Response headers received. */
  headersUs: number;
  /** First SSE data event (or body byte, non-streaming) of any kind, role-only included. */
  firstChunkUs: number;
  /** First chunk carrying generated text: content, reasoning or tool-call arguments. */
  firstTokenUs: number;
  /** First chunk carrying answer content or a tool call (reasoning excluded). */
  firstOutputUs: number;
  /** Last chunk carrying generated text. */
  lastTokenUs: number;
  /** End of the response: end marker, end of body, or the failure. */
  endUs: number;
  /**
   * The new connection this attempt was sent on (or failed to open): TCP connect start (after any DNS
   * lookup) and end, TLS handshake start and end. NaN on a reused keep-alive connection, and for the
   * TLS pair on plain http. Through a proxy the TCP connect is the one to the proxy.
   */
  connectStartUs: number;
  connectEndUs: number;
  tlsStartUs: number;
  tlsEndUs: number;
  /**
   * Arrival times of every chunk carrying generated text, in order. Lives only while the request is in
   * flight and being aggregated (ITL is pooled from the gaps), then the record is dropped.
   */
  tokenChunkTimesUs: number[];
  /** HTTP status; 0 when no response arrived. */
  status: number;
  /** null on success. */
  errorClass: ErrorClass | null;
  timeoutPhase: TimeoutPhase | null;
  /** Short, secret-free description of the failure (server message, or the socket error). */
  errorMessage: string | null;
  /** Error `code` from the server's error body, when there was one. */
  errorCode: string | null;
  /** Answer text received (content and tool-call arguments), kept for token estimates without usage. */
  outputText: string;
  /**
   * Answer content only (no tool-call arguments, no reasoning), for the answer checks and a conversation's
   * next turn; kept only when `keepContent` is set (empty otherwise), dropped with the record.
   */
  content: string;
  /**
   * Whether the client keeps `content`: set at launch by the runner when something reads it (the request's
   * answer is checked, or it is a turn of a conversation). False by default: no request pays for a copy
   * of its answer that nothing reads.
   */
  keepContent: boolean;
  /** Tool calls the answer made, assembled from stream deltas or the message; null when it made none. */
  toolCalls: ReceivedToolCall[] | null;
  /**
   * The stream `index` each call of `toolCalls` was opened at (same order), so a later fragment of that
   * index extends it (tool-call-assembly.ts); null when no call was opened.
   */
  toolCallIndexes: number[] | null;
  /** Answer checks (measure/answer-checks.ts), set once the record is finished; null when none apply. */
  checks: AnswerCheck[] | null;
  /** Reasoning text received. */
  reasoningText: string;
  /** Number of SSE data events (all kinds). */
  chunkCount: number;
  /**
   * Of them, the events whose `choices` array is non-empty (chat and text completions): a usage-only chunk
   * (`choices: []`, sent when `stream_options.include_usage` is asked) is not one. The tools that read
   * `choices` (vLLM, llmperf) count these (aggregate/dialects/).
   */
  choiceChunkCount: number;
  /** Arrival of the last event counted in `choiceChunkCount` (the finish chunk, usually); NaN when none. */
  lastChoiceUs: number;
  /** Input tokens as the workload built them (token-exact), for estimates and mismatch checks. */
  expectedInputTokens: number;
  /**
   * Inputs of an embeddings request (its `input`'s length: inputs_per_request), which an answer must match
   * with as many embeddings; NaN for an API that generates (chat, completions...).
   */
  inputs: number;
  usage: Usage | null;
  timeInfo: TimeInfo | null;
  finishReason: string | null;
  serviceTierUsed: string | null;
  /** `x-ratelimit-remaining-requests-minute` / `-tokens-minute` of the response; NaN when absent. */
  rateLimitRemainingRequests: number;
  rateLimitRemainingTokens: number;
  /**
   * Attempts made (1 without retries). The request is measured as its caller waits for it: from its start
   * (before the first attempt) to the final attempt's events; the outcome is the final attempt's.
   */
  attempts: number;
  /** Error classes of the attempts that failed and were retried, in order (empty without retries). */
  retriedErrors: ErrorClass[];
  /** The id sent in the request-id header (the same on every attempt); null when none is sent. */
  requestId: string | null;
  /** The W3C trace id of the `traceparent` header sent (the same on every attempt); null when none is sent. */
  traceId: string | null;
  /** The response's `id` and `system_fingerprint`, to find the request in the server's logs. */
  responseId: string | null;
  /** The response's `x-request-id` header: the server's own id for the request (or its echo of ours). */
  serverRequestId: string | null;
  systemFingerprint: string | null;
  /** The plan's labels (RequestPlan.labels), counted per (label, value) in breakdowns; null when it has none. */
  labels: Readonly<Record<string, string>> | null;
}

/**
 * A record launched at `launchUs`. `startsAtSend` (closed loop): latencies start when the request is
 * written to its socket (see `latencyStartUs`), filled in by markSent().
 */
export function createRequestRecord(
  id: number,
  groupIndex: number,
  launchUs: number,
  warmup = false,
  startsAtSend = false,
): RequestRecord {
  return {
    id,
    groupIndex,
    warmup,
    launchUs,
    latencyStartUs: startsAtSend ? Number.NaN : launchUs,
    sentUs: Number.NaN,
    headersUs: Number.NaN,
    firstChunkUs: Number.NaN,
    firstTokenUs: Number.NaN,
    firstOutputUs: Number.NaN,
    lastTokenUs: Number.NaN,
    endUs: Number.NaN,
    connectStartUs: Number.NaN,
    connectEndUs: Number.NaN,
    tlsStartUs: Number.NaN,
    tlsEndUs: Number.NaN,
    tokenChunkTimesUs: [],
    status: 0,
    errorClass: null,
    timeoutPhase: null,
    errorMessage: null,
    errorCode: null,
    outputText: '',
    content: '',
    keepContent: false,
    toolCalls: null,
    toolCallIndexes: null,
    checks: null,
    reasoningText: '',
    chunkCount: 0,
    choiceChunkCount: 0,
    lastChoiceUs: Number.NaN,
    expectedInputTokens: Number.NaN,
    inputs: Number.NaN,
    usage: null,
    timeInfo: null,
    finishReason: null,
    serviceTierUsed: null,
    rateLimitRemainingRequests: Number.NaN,
    rateLimitRemainingTokens: Number.NaN,
    attempts: 0,
    retriedErrors: [],
    requestId: null,
    traceId: null,
    responseId: null,
    serverRequestId: null,
    systemFingerprint: null,
    labels: null,
  };
}

/** The request was written to its socket (or, never written, gave up) at `atUs`: the send, and the start where it waits for one. */
export function markSent(record: RequestRecord, atUs: number): void {
  if (!Number.isNaN(record.sentUs)) return;
  record.sentUs = atUs;
  if (Number.isNaN(record.latencyStartUs)) record.latencyStartUs = atUs;
}
