/** Header names of the API, lower-case as Node presents them. */
export const HEADER = {
  authorization: 'authorization',
  /** Anthropic's key header (instead of Authorization: Bearer). */
  apiKey: 'x-api-key',
  contentType: 'content-type',
  contentEncoding: 'content-encoding',
  versionPatch: 'x-service-version-patch',
  integration: 'x-service-3rd-party-integration',
  queueThreshold: 'queue_threshold',
  retryAfter: 'retry-after',
  /** The server's id for a request, when it answers one (OpenAI; vLLM with --enable-request-id-headers). */
  requestId: 'x-request-id',
  /** Anthropic's id for a request (`req_...`), in place of x-request-id. */
  anthropicRequestId: 'request-id',
  /** W3C Trace Context (https://www.w3.org/TR/trace-context/): `00-<trace id>-<parent id>-<flags>`. */
  traceparent: 'traceparent',
  /** Emulator only: per-request fault injection (see docs/emulator.md#capacity-tiers-rate-limits-prompt-cache-and-faults). */
  emulatorFault: 'x-emulator-fault',
} as const;

export const CONTENT_TYPE = {
  json: 'application/json',
  msgpack: 'application/vnd.msgpack',
  ndjson: 'application/x-ndjson',
  eventStream: 'text/event-stream',
} as const;

/** The only live API version; sent by default and the emulator's default. */
export const API_VERSION_PATCH = '2';

export const QUEUE_THRESHOLD_MIN_MS = 50;
export const QUEUE_THRESHOLD_MAX_MS = 20_000;

export type RateLimitWindow = 'minute' | 'hour' | 'day';
export type RateLimitResource = 'requests' | 'tokens';

/** `x-ratelimit-{limit,remaining,reset}-{requests,tokens}-{minute,hour,day}`; reset is in float seconds. */
export function rateLimitHeaderName(
  kind: 'limit' | 'remaining' | 'reset',
  resource: RateLimitResource,
  window: RateLimitWindow,
): string {
  return `x-ratelimit-${kind}-${resource}-${window}`;
}
