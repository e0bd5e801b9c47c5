/**
 * The load-side behaviours the chat handler consults, each behind a small interface with a no-op default:
 * rate limits, the prompt cache and fault injection (the engine, for timing, is in engine.ts). The HTTP
 * side calls them in this order: faults.decide -> rateLimiter.admit -> queue_threshold (engine) ->
 * promptCache.cachedTokens -> engine.submit.
 */
import type { ChatCompletionRequest, ServiceTierUsed } from '../protocol/chat.js';
import type { ApiError } from './api-error.js';
import type { ModelSpec } from './model-spec.js';

export interface RateLimitDecision {
  /** null: admitted. Otherwise the 429 to answer with (its headers include retry-after). */
  readonly rejection: ApiError | null;
  /** `x-ratelimit-*` headers to put on the response, admitted or not. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface RateLimiter {
  /**
   * Counts one request against the key's limits for the model; reserves `reservedTokens`
   * (input + max_completion_tokens) up front.
   */
  admit(apiKey: string, model: ModelSpec, tier: ServiceTierUsed, reservedTokens: number): RateLimitDecision;
  /** Headers describing the current state without counting anything (for responses that are not admitted for other reasons). */
  headers(apiKey: string, model: ModelSpec, tier: ServiceTierUsed): Readonly<Record<string, string>>;
}

export interface PromptCache {
  /** Prompt tokens of this request served from cache (0..promptTokens); records the request's prefix. */
  cachedTokens(request: ChatCompletionRequest, promptTokens: number, modelId: string): number;
}

export type FaultKind =
  | 'none'
  | 'http_500'
  | 'http_503'
  | 'stream_error'
  | 'reset'
  | 'stall_before_headers'
  | 'stall_between_tokens'
  | 'slow_headers'
  /** Tool-call arguments and the content lose their last token (generation/invalid-answer.ts): they no longer parse. */
  | 'invalid_answer';

export interface FaultPlan {
  readonly kind: FaultKind;
  /** For in-stream faults: how many tokens go out before the fault. */
  readonly afterTokens: number;
  /** For stalls and slow headers: how long, ms. */
  readonly stallMs: number;
}

export const NO_FAULT: FaultPlan = { kind: 'none', afterTokens: 0, stallMs: 0 };

export interface FaultInjector {
  /** Decides this request's fault from the model's configured rates and the `x-emulator-fault` header. */
  decide(model: ModelSpec, faultHeader: string | undefined, requestSeed: number): FaultPlan;
}

export const noRateLimits: RateLimiter = {
  admit: () => ({ rejection: null, headers: {} }),
  headers: () => ({}),
};

export const noPromptCache: PromptCache = { cachedTokens: () => 0 };

export const noFaults: FaultInjector = { decide: () => NO_FAULT };
