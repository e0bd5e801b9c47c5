/**
 * Rate limits per API key and model, from the catalog's `requests_per_minute` and `tokens_per_minute`
 * (null = unlimited): continuous token buckets per minute, plus hour and day buckets of 60 and 1440
 * minutes' worth (the spec gives no hour or day figures). Tokens are reserved up front as input +
 * max_completion_tokens. `flex` traffic has its own buckets, apart from `priority`/`default`, as the real
 * service counts it.
 * Every decision carries the `x-ratelimit-*` headers of all three windows for both resources, like the
 * real service on every response: an unlimited resource (a null limit, or a dedicated endpoint) reports
 * `UNLIMITED_RATE_LIMIT` as its limit and remaining and 0 as its reset, and is never counted or enforced.
 * A rejection is a 429 with `retry-after` set to the whole seconds until every needed bucket has refilled
 * enough, so a client honouring it gets through.
 */
import type { ServiceTierUsed } from '../../protocol/chat.js';
import { HEADER, rateLimitHeaderName, type RateLimitResource, type RateLimitWindow } from '../../protocol/headers.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { ApiError } from '../api-error.js';
import type { RateLimitDecision, RateLimiter } from '../hooks.js';
import type { ModelSpec } from '../model-spec.js';
import { TokenBucket } from './token-bucket.js';

/**
 * The limit and remaining value reported for an unlimited resource. The real service sends "very large"
 * numbers there; its exact value is unknown, so the emulator picks one that no real limit reaches and
 * that still fits a signed 32-bit integer.
 */
export const UNLIMITED_RATE_LIMIT = 1_000_000_000;

/** The `param` of every rate-limit 429, as the real service sends it. */
export const QUOTA_PARAM = 'quota';

export interface BucketRateLimiterOptions {
  readonly clock?: Clock;
  /** Day limit as a multiple of the minute limit (default 1440: a full day at the minute rate). */
  readonly dayMultiplier?: number;
  /** Most (key, model, tier class) states kept; the oldest is dropped beyond it. */
  readonly maxStates?: number;
  /**
   * Model ids the catalog limits do not apply to: dedicated endpoints, whose capacity is bought per
   * deployment and limited by its slots (they are not in the public catalog that states the limits).
   * They report every resource as unlimited.
   */
  readonly unlimitedModelIds?: Iterable<string>;
}

const MINUTE_MS = 60_000;
const MINUTES_PER_HOUR = 60;

/** The windows of each resource, in the order they are reported and checked. */
const WINDOWS: readonly RateLimitWindow[] = ['minute', 'hour', 'day'];
const RESOURCES: readonly RateLimitResource[] = ['requests', 'tokens'];

interface Limit {
  readonly resource: RateLimitResource;
  readonly window: RateLimitWindow;
  /** null: unlimited (reported with UNLIMITED_RATE_LIMIT, never counted). */
  readonly bucket: TokenBucket | null;
}

/** The limits of one (key, model, tier class), in the order they are reported and checked. */
type LimitState = readonly Limit[];

const UNLIMITED: LimitState = RESOURCES.flatMap((resource) =>
  WINDOWS.map((window) => ({ resource, window, bucket: null })),
);

/** Formats seconds as a float with at most 3 decimals ("0.5", "12.345"). */
function floatSeconds(ms: number): string {
  return String(Math.round(ms) / 1000);
}

export class BucketRateLimiter implements RateLimiter {
  readonly #clock: Clock;
  readonly #minutesPerWindow: Readonly<Record<RateLimitWindow, number>>;
  readonly #maxStates: number;
  readonly #states = new Map<string, LimitState>();
  readonly #unlimited: ReadonlySet<string>;

  constructor(options: BucketRateLimiterOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#minutesPerWindow = { minute: 1, hour: MINUTES_PER_HOUR, day: options.dayMultiplier ?? 1440 };
    this.#maxStates = options.maxStates ?? 100_000;
    this.#unlimited = new Set(options.unlimitedModelIds ?? []);
  }

  admit(apiKey: string, model: ModelSpec, tier: ServiceTierUsed, reservedTokens: number): RateLimitDecision {
    const nowMs = this.#clock.nowMs();
    const limits = this.#state(apiKey, model, tier, nowMs);
    const amountOf = (limit: Limit): number => (limit.resource === 'requests' ? 1 : reservedTokens);
    let waitMs = 0;
    let short: Limit | undefined;
    for (const limit of limits) {
      const wait = limit.bucket?.waitMs(amountOf(limit), nowMs) ?? 0;
      if (wait > 0) {
        // Requests are reported before tokens: the first short bucket names the error.
        short ??= limit;
        waitMs = Math.max(waitMs, wait);
      }
    }
    // A short limit always has a bucket: unlimited ones never wait.
    if (short === undefined || short.bucket === null) {
      for (const limit of limits) limit.bucket?.take(amountOf(limit), nowMs);
      return { rejection: null, headers: headersOf(limits, nowMs) };
    }
    const headers = headersOf(limits, nowMs);
    const retryAfterS = Math.max(1, Math.ceil(waitMs / 1000));
    const message = rejectionMessage(model.id, tier, short, short.bucket, reservedTokens, nowMs, retryAfterS);
    const [type, code] =
      short.resource === 'requests'
        ? (['too_many_requests_error', 'request_quota_exceeded'] as const)
        : (['too_many_tokens_error', 'token_quota_exceeded'] as const);
    const rejection = new ApiError(429, type, code, message, QUOTA_PARAM, {
      ...headers,
      [HEADER.retryAfter]: String(retryAfterS),
    });
    return { rejection, headers };
  }

  headers(apiKey: string, model: ModelSpec, tier: ServiceTierUsed): Readonly<Record<string, string>> {
    const nowMs = this.#clock.nowMs();
    return headersOf(this.#state(apiKey, model, tier, nowMs), nowMs);
  }

  #state(apiKey: string, model: ModelSpec, tier: ServiceTierUsed, nowMs: number): LimitState {
    if (this.#unlimited.has(model.id)) return UNLIMITED;
    const key = `${tier === 'flex' ? 'flex' : 'standard'}\u0000${model.id}\u0000${apiKey}`;
    let state = this.#states.get(key);
    if (state === undefined) {
      state = this.#create(model, nowMs);
      if (this.#states.size >= this.#maxStates) {
        const oldest = this.#states.keys().next();
        if (!oldest.done) this.#states.delete(oldest.value);
      }
      this.#states.set(key, state);
    }
    return state;
  }

  #create(model: ModelSpec, nowMs: number): LimitState {
    const perMinute: Record<RateLimitResource, number | null> = {
      requests: model.limits.requestsPerMinute,
      tokens: model.limits.tokensPerMinute,
    };
    return RESOURCES.flatMap((resource) =>
      WINDOWS.map((window): Limit => {
        const minuteLimit = perMinute[resource];
        if (minuteLimit === null) return { resource, window, bucket: null };
        const minutes = this.#minutesPerWindow[window];
        return { resource, window, bucket: new TokenBucket(minuteLimit * minutes, minutes * MINUTE_MS, nowMs) };
      }),
    );
  }
}

function rejectionMessage(
  modelId: string,
  tier: ServiceTierUsed,
  short: Limit,
  bucket: TokenBucket,
  reservedTokens: number,
  nowMs: number,
  retryAfterS: number,
): string {
  const lane = tier === 'flex' ? ' (flex tier)' : '';
  return (
    `Rate limit reached for model ${modelId}${lane} on ${short.resource} per ${short.window}: ` +
    `limit ${bucket.capacity}, remaining ${Math.max(0, Math.floor(bucket.level(nowMs)))}` +
    (short.resource === 'tokens' ? `, requested ${reservedTokens} (input + max_completion_tokens)` : '') +
    `. Please try again in ${retryAfterS}s.`
  );
}

/** The `x-ratelimit-{limit,remaining,reset}-{resource}-{window}` headers of every resource and window. */
function headersOf(limits: LimitState, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { resource, window, bucket } of limits) {
    const limit = bucket === null ? UNLIMITED_RATE_LIMIT : bucket.capacity;
    const remaining = bucket === null ? UNLIMITED_RATE_LIMIT : Math.max(0, Math.floor(bucket.level(nowMs)));
    headers[rateLimitHeaderName('limit', resource, window)] = String(limit);
    headers[rateLimitHeaderName('remaining', resource, window)] = String(remaining);
    headers[rateLimitHeaderName('reset', resource, window)] = floatSeconds(bucket?.msUntilFull(nowMs) ?? 0);
  }
  return headers;
}

/** Builds the emulator's default rate limiter. */
export function createRateLimiter(options: BucketRateLimiterOptions = {}): BucketRateLimiter {
  return new BucketRateLimiter(options);
}
