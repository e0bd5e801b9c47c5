/**
 * Rate limits per API key and model, from the catalog's `requests_per_minute` and `tokens_per_minute`
 * (null = unlimited): continuous token buckets per minute, plus day buckets of 1440 minutes' worth (the
 * spec gives no day figures); dedicated endpoints can be exempted. Tokens are reserved up front as input + max_completion_tokens. `flex`
 * traffic has its own buckets, apart from `priority`/`default`, as the real service counts it.
 * Every decision carries the `x-ratelimit-*` headers; a rejection is a 429 with `retry-after` set to the
 * whole seconds until every needed bucket has refilled enough, so a client honouring it gets through.
 */
import type { ServiceTierUsed } from '../../protocol/chat.js';
import { HEADER, rateLimitHeaderName, type RateLimitResource, type RateLimitWindow } from '../../protocol/headers.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { ApiError } from '../api-error.js';
import type { RateLimitDecision, RateLimiter } from '../hooks.js';
import type { ModelSpec } from '../model-spec.js';
import { TokenBucket } from './token-bucket.js';

export interface BucketRateLimiterOptions {
  readonly clock?: Clock;
  /** Day limit as a multiple of the minute limit (default 1440: a full day at the minute rate). */
  readonly dayMultiplier?: number;
  /** Most (key, model, tier class) states kept; the oldest is dropped beyond it. */
  readonly maxStates?: number;
  /**
   * Model ids the catalog limits do not apply to: dedicated endpoints, whose capacity is bought per
   * deployment and limited by its slots (they are not in the public catalog that states the limits).
   */
  readonly unlimitedModelIds?: Iterable<string>;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

interface Limit {
  readonly resource: RateLimitResource;
  readonly window: RateLimitWindow;
  readonly bucket: TokenBucket;
}

/** The buckets of one (key, model, tier class), in the order they are reported and checked. */
type LimitState = readonly Limit[];

const NO_LIMITS: LimitState = [];

/** Formats seconds as a float with at most 3 decimals ("0.5", "12.345"). */
function floatSeconds(ms: number): string {
  return String(Math.round(ms) / 1000);
}

export class BucketRateLimiter implements RateLimiter {
  readonly #clock: Clock;
  readonly #dayMultiplier: number;
  readonly #maxStates: number;
  readonly #states = new Map<string, LimitState>();
  readonly #unlimited: ReadonlySet<string>;

  constructor(options: BucketRateLimiterOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#dayMultiplier = options.dayMultiplier ?? 1440;
    this.#maxStates = options.maxStates ?? 100_000;
    this.#unlimited = new Set(options.unlimitedModelIds ?? []);
  }

  admit(apiKey: string, model: ModelSpec, tier: ServiceTierUsed, reservedTokens: number): RateLimitDecision {
    const nowMs = this.#clock.nowMs();
    const limits = this.#state(apiKey, model, tier, nowMs);
    let waitMs = 0;
    let short: Limit | undefined;
    for (const limit of limits) {
      const wait = limit.bucket.waitMs(limit.resource === 'requests' ? 1 : reservedTokens, nowMs);
      if (wait > 0) {
        // Requests are reported before tokens: the first short bucket names the error.
        short ??= limit;
        waitMs = Math.max(waitMs, wait);
      }
    }
    if (short === undefined) {
      for (const limit of limits) limit.bucket.take(limit.resource === 'requests' ? 1 : reservedTokens, nowMs);
      return { rejection: null, headers: headersOf(limits, nowMs) };
    }
    const headers = headersOf(limits, nowMs);
    const retryAfterS = Math.max(1, Math.ceil(waitMs / 1000));
    const what = `${short.resource} per ${short.window}`;
    const lane = tier === 'flex' ? ' (flex tier)' : '';
    const message =
      `Rate limit reached for model ${model.id}${lane} on ${what}: limit ${short.bucket.capacity}, ` +
      `remaining ${Math.max(0, Math.floor(short.bucket.level(nowMs)))}` +
      (short.resource === 'tokens' ? `, requested ${reservedTokens} (input + max_completion_tokens)` : '') +
      `. Please try again in ${retryAfterS}s.`;
    const rejection =
      short.resource === 'requests'
        ? new ApiError(429, 'too_many_requests_error', 'request_quota_exceeded', message, null, {
            ...headers,
            [HEADER.retryAfter]: String(retryAfterS),
          })
        : new ApiError(429, 'too_many_tokens_error', 'token_quota_exceeded', message, null, {
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
    if (this.#unlimited.has(model.id)) return NO_LIMITS;
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
    const limits: Limit[] = [];
    const { requestsPerMinute, tokensPerMinute } = model.limits;
    const add = (resource: RateLimitResource, perMinute: number | null): void => {
      if (perMinute === null) return;
      limits.push({ resource, window: 'minute', bucket: new TokenBucket(perMinute, MINUTE_MS, nowMs) });
      limits.push({ resource, window: 'day', bucket: new TokenBucket(perMinute * this.#dayMultiplier, DAY_MS, nowMs) });
    };
    add('requests', requestsPerMinute);
    add('tokens', tokensPerMinute);
    return limits;
  }
}

/** The `x-ratelimit-{limit,remaining,reset}-{resource}-{window}` headers of the limits that exist. */
function headersOf(limits: LimitState, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { resource, window, bucket } of limits) {
    headers[rateLimitHeaderName('limit', resource, window)] = String(bucket.capacity);
    headers[rateLimitHeaderName('remaining', resource, window)] = String(Math.max(0, Math.floor(bucket.level(nowMs))));
    headers[rateLimitHeaderName('reset', resource, window)] = floatSeconds(bucket.msUntilFull(nowMs));
  }
  return headers;
}

/** Builds the emulator's default rate limiter. */
export function createRateLimiter(options: BucketRateLimiterOptions = {}): BucketRateLimiter {
  return new BucketRateLimiter(options);
}
