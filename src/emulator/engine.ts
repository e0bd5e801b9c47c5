/**
 * The seam between "what to say" and "when to say it". The request handler builds the whole completion
 * up front (generation is cheap and deterministic), then submits a job; the engine decides when prefill
 * ends and when each token may go out, and calls back. The fixed-timing engine and the capacity engine
 * (queues, slots, tiers) both implement this, so the HTTP side never changes with the timing model.
 */
import type { ServiceTierUsed, TimeInfo } from '../protocol/chat.js';

export interface EngineJob {
  /** Catalog model id, or dedicated endpoint id (each has its own capacity). */
  readonly modelId: string;
  readonly tier: ServiceTierUsed;
  readonly inputTokens: number;
  /** Input tokens served from the prompt cache (prefilled faster). */
  readonly cachedTokens: number;
  /** Tokens to emit in total (reasoning + answer). */
  readonly outputTokens: number;
  /** Seed for the job's jitter. */
  readonly seed: number;
}

export interface EngineCallbacks {
  /**
   * Called when the next `count` tokens are due (count >= 1; batched per tick). The handler writes them;
   * the sum of counts over a job equals outputTokens.
   */
  onTokens(count: number): void;
  /** Called once, after the last token, with the time the job really spent in each phase. */
  onFinish(timeInfo: TimeInfo): void;
}

export interface EngineHandle {
  /** Client went away: free the slot, never call back again. */
  cancel(): void;
}

export interface Engine {
  submit(job: EngineJob, callbacks: EngineCallbacks): EngineHandle;
  /** Rolling average queue time (ms) of a model, for `queue_threshold` admission. */
  averageQueueMs(modelId: string): number;
  /** Stops timers; outstanding jobs are cancelled. */
  close(): void;
}
