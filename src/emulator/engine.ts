/**
 * The seam between "what to say" and "when to say it". The request handler builds the whole completion
 * up front (generation is cheap and deterministic), then submits a job; the engine decides when prefill
 * ends and when each token may go out, and calls back. The fixed-timing engine and the capacity engine
 * (queues, slots, tiers) both implement this, so the HTTP side never changes with the timing model.
 */
import type { ServiceTierUsed } from '../protocol/chat.js';

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
  /**
   * When the server read the request, on the engine's clock (`Engine.nowMs`): queue time runs from here,
   * so the time the request spent being parsed, validated and planned, and waiting for that behind the
   * requests read before it, is queue time, as on a real service. Default: the submission.
   */
  readonly receivedMs?: number;
}

/**
 * When a finished job crossed each boundary of time_info, on the engine's clock (ms). The response
 * writer turns them into time_info (time-info.ts) when it writes the last byte, which can be later than
 * `doneMs` (tokens held by a stall or slow headers, a whole body serialized at the end).
 */
export interface JobTimes {
  /** The request was read (queue time starts). */
  readonly receivedMs: number;
  /** The job got a slot (prompt processing starts). */
  readonly slotMs: number;
  /** The first token was released (NaN: the job had none). */
  readonly firstTokenMs: number;
  /** The last token was released. */
  readonly doneMs: number;
  /** Wall clock (ms since the epoch) at `receivedMs`: time_info's `created`. */
  readonly receivedWallMs: number;
}

export interface EngineCallbacks {
  /**
   * Called when the next `count` tokens are due (count >= 1; batched per tick). The handler writes them;
   * the sum of counts over a job equals outputTokens. `nowMs`: the engine clock at their release (for
   * the first call, JobTimes.firstTokenMs), given by the built-in engines.
   */
  onTokens(count: number, nowMs?: number): void;
  /** Called once, after the last token, with when the job really crossed each phase boundary. */
  onFinish(times: JobTimes): void;
}

export interface EngineHandle {
  /** Client went away: free the slot, never call back again. */
  cancel(): void;
}

/** One model's load at this moment (GET /metrics reads it, never the request path). */
export interface ModelLoad {
  /** Catalog model id or dedicated endpoint id. */
  readonly modelId: string;
  /** Jobs holding a slot (prefilling or decoding). */
  readonly running: number;
  /** Jobs waiting for a slot, by the tier they wait in. */
  readonly waiting: Readonly<Record<ServiceTierUsed, number>>;
  /** Tokens the running jobs hold: each one's input tokens plus the tokens it has generated so far. */
  readonly heldTokens: number;
}

export interface Engine {
  /** The engine's monotonic clock (ms): the server stamps request receipt and the last write with it. */
  nowMs(): number;
  submit(job: EngineJob, callbacks: EngineCallbacks): EngineHandle;
  /** Rolling average queue time (ms) of a model, for `queue_threshold` admission. */
  averageQueueMs(modelId: string): number;
  /**
   * The load of every model that has had a job (running, waiting by tier, tokens held). Optional: an
   * engine without it reports no load, and GET /metrics then shows every gauge at 0.
   */
  loads?(): readonly ModelLoad[];
  /** Stops timers; outstanding jobs are cancelled. */
  close(): void;
}
