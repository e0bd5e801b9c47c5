/**
 * Retries as a wrapper around one attempt. A request is measured as its caller waits for it: the record
 * keeps its start and the first attempt's send time (`sentUs`), so every latency includes the failed
 * attempts and the waits between them, while the outcome (status, tokens, usage, error) is the final
 * attempt's. Nothing is hidden: `attempts` counts the attempts and `retriedErrors` keeps the class of each
 * one that failed and was retried, which the collector counts per group even when the retry succeeded.
 * A 429's `retry-after` is honoured; otherwise the wait doubles from `backoffMs`.
 */
import type { Clock, TimerHandle } from '../util/clock.js';
import { offAbort, onAbort } from './abort-fanout.js';
import type { AttemptOutcome, EncodedRequest } from './attempt-handler.js';
import type { ErrorClass, RequestRecord } from './request-record.js';
import type { ClientOptions } from './types.js';

/** One attempt: fills the attempt fields of `record`, resolves when it ended. */
export type Attempt = (
  request: EncodedRequest,
  record: RequestRecord,
  signal: AbortSignal | undefined,
) => Promise<AttemptOutcome>;

/** A server asking for an hour must not stall a benchmark: waits are capped. */
const MAX_RETRY_WAIT_MS = 60_000;

/** Clears what one attempt wrote, keeping identity, the first send time and the attempt count. */
export function resetAttemptFields(record: RequestRecord): void {
  record.headersUs = Number.NaN;
  record.firstChunkUs = Number.NaN;
  record.firstTokenUs = Number.NaN;
  record.firstOutputUs = Number.NaN;
  record.lastTokenUs = Number.NaN;
  record.endUs = Number.NaN;
  record.connectStartUs = Number.NaN;
  record.connectEndUs = Number.NaN;
  record.tlsStartUs = Number.NaN;
  record.tlsEndUs = Number.NaN;
  record.tokenChunkTimesUs.length = 0;
  record.status = 0;
  record.errorClass = null;
  record.timeoutPhase = null;
  record.errorMessage = null;
  record.errorCode = null;
  record.outputText = '';
  record.content = '';
  record.toolCalls = null;
  record.toolCallIndexes = null;
  record.reasoningText = '';
  record.chunkCount = 0;
  record.choiceChunkCount = 0;
  record.lastChoiceUs = Number.NaN;
  record.usage = null;
  record.timeInfo = null;
  record.finishReason = null;
  record.serviceTierUsed = null;
  record.rateLimitRemainingRequests = Number.NaN;
  record.rateLimitRemainingTokens = Number.NaN;
  record.responseId = null;
  record.serverRequestId = null;
  record.systemFingerprint = null;
}

/** Resolves after `ms`, or at once when `signal` aborts (true then). */
function wait(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve(true);
      return;
    }
    const abortWait = (): void => {
      clock.clearTimer(timer);
      resolve(true);
    };
    const timer: TimerHandle = clock.setTimer(() => {
      if (signal !== undefined) offAbort(signal, abortWait);
      resolve(false);
    }, ms);
    if (signal !== undefined) onAbort(signal, abortWait);
  });
}

/** Wraps `attempt` with the profile's retry policy (`maxAttempts` 1: the attempt itself); waits on `clock`. */
export function withRetry(attempt: Attempt, spec: ClientOptions['retry'], clock: Clock): Attempt {
  if (spec.maxAttempts <= 1) return attempt;
  const retryOn = new Set<string>(spec.on);
  return async (request, record, signal) => {
    for (let n = 1; ; n += 1) {
      const outcome = await attempt(request, record, signal);
      const errorClass: ErrorClass | null = record.errorClass;
      if (errorClass === null || !retryOn.has(errorClass) || n >= spec.maxAttempts || signal?.aborted) return outcome;
      // Kept before the wait: an attempt that failed stays counted even when the run stops during the wait.
      record.retriedErrors.push(errorClass);
      const backoffMs = spec.backoffMs * 2 ** (n - 1);
      const waitMs = Math.min(MAX_RETRY_WAIT_MS, Number.isNaN(outcome.retryAfterMs) ? backoffMs : outcome.retryAfterMs);
      if (await wait(clock, waitMs, signal)) {
        record.endUs = clock.nowUs();
        record.errorClass = 'timeout';
        record.timeoutPhase = 'total';
        record.errorMessage = 'aborted while waiting to retry';
        return outcome;
      }
      resetAttemptFields(record);
    }
  };
}
