/**
 * The capacity model: an Engine where each model (and each dedicated endpoint) has a number of slots,
 * a prefill rate, a per-stream decode rate and a time-to-first-token floor. Jobs beyond the slots wait
 * in one tier-ordered queue per model. Tokens go out at the decode rate in wall-clock time.
 *
 * One driver serves every stream: each tick walks the array of active jobs and, from each job's start
 * time and rate (never by counting ticks, so nothing drifts), works out how many tokens are due and calls
 * onTokens(count) once. No timer per job and no allocation per token. Between ticks the driver sleeps
 * on one setTimeout until the next due token; because Node's timers have millisecond granularity and
 * fire late, each tick also sends what falls due within `lookaheadMs` (0.5 ms), which centres the
 * schedule error on zero. When behind (a busy event loop) it runs again at once with setImmediate and
 * sends everything due in one call per job. Spinning for sub-millisecond precision is possible
 * (`spinMarginMs`) but off: it would keep a core busy that the load generator needs.
 */
import type { ServiceTierUsed } from '../../protocol/chat.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { createRng } from '../../util/rng.js';
import type { Engine, EngineCallbacks, EngineHandle, EngineJob, JobTimes, ModelLoad } from '../engine.js';
import type { CapacitySpec } from '../model-spec.js';
import { SHARED_MODEL_CAPACITY, type CapacityLookup } from './capacity-defaults.js';
import type { LatenessStats } from './lateness-stats.js';
import { QueueTimeAverage } from './queue-time-average.js';
import { TierQueue } from './tier-queue.js';

export interface CapacityEngineOptions {
  /** Capacity of a model or endpoint id; ids it does not know get `fallback`. */
  readonly capacityOf: CapacityLookup;
  readonly fallback?: CapacitySpec;
  readonly clock?: Clock;
  /** Time constant of the rolling average queue time (ms). */
  readonly queueAverageWindowMs?: number;
  /**
   * Tokens due within this many ms are sent in the current tick (a little early rather than a timer
   * granule late), which centres the schedule error around 0 instead of skewing it late. Default 0.5.
   */
  readonly lookaheadMs?: number;
  /**
   * When the next due token is closer than this (ms), the driver spins with setImmediate instead of
   * sleeping on a timer: more accurate, but a busy engine then keeps one core busy. Default 0 (never).
   */
  readonly spinMarginMs?: number;
  /** Records how far from its schedule every token went out (for the benchmark); off by default. */
  readonly lateness?: LatenessStats;
  /** Receives an exception thrown by a job's callbacks (default: rethrown outside the driver). */
  readonly onCallbackError?: (error: unknown) => void;
}

enum JobState {
  Queued,
  Running,
  Done,
  Cancelled,
}

/** Jitter is capped below 1 so that token due times stay strictly increasing. */
const MAX_TOKEN_JITTER = 0.9;

class ModelState {
  busySlots = 0;
  /** Summed over the jobs running now by loads(): input tokens plus the tokens each has emitted. */
  heldTokens = 0;
  lastWaitMs = 0;
  readonly queue = new TierQueue<Job>();
  readonly average: QueueTimeAverage;

  constructor(
    readonly spec: CapacitySpec,
    windowMs: number,
    nowMs: number,
  ) {
    this.average = new QueueTimeAverage(windowMs, nowMs);
  }

  /** The wait a request arriving now would see (see QueueTimeAverage). */
  signalMs(nowMs: number): number {
    if (this.busySlots < this.spec.slots && this.queue.size === 0) return 0;
    const oldest = this.queue.oldestSubmitMs();
    return Number.isNaN(oldest) ? this.lastWaitMs : Math.max(this.lastWaitMs, nowMs - oldest);
  }
}

class Job implements EngineHandle {
  state = JobState.Queued;
  slotMs = Number.NaN;
  /** Scheduled time of token 0 (end of prompt processing). */
  firstTokenMs = Number.NaN;
  firstTokenActualMs = Number.NaN;
  intervalMs = 0;
  tokenJitter = 0;
  emitted = 0;
  nextDueMs = Number.NaN;

  constructor(
    readonly engine: CapacityEngine,
    readonly model: ModelState,
    readonly tier: ServiceTierUsed,
    readonly inputTokens: number,
    readonly cachedTokens: number,
    readonly total: number,
    readonly seed: number,
    readonly callbacks: EngineCallbacks,
    /** When the request was read (see EngineJob.receivedMs): its wait, and its queue_time, start here. */
    readonly submitMs: number,
    readonly receivedWallMs: number,
  ) {}

  get cancelled(): boolean {
    return this.state === JobState.Cancelled;
  }

  cancel(): void {
    this.engine.cancelJob(this);
  }

  /** Due time of token `index` (0-based): evenly spaced at the decode rate, each nudged by seeded jitter. */
  dueMs(index: number): number {
    if (index === 0) return this.firstTokenMs;
    return this.firstTokenMs + this.intervalMs * (index + this.tokenJitter * unitNoise(this.seed, index));
  }
}

/** Deterministic noise in [-0.5, 0.5) from a seed and an index, without allocating an Rng per token. */
function unitNoise(seed: number, index: number): number {
  let h = Math.imul(seed ^ Math.imul(index, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296 - 0.5;
}

/** The capacity model. See the file comment. */
export class CapacityEngine implements Engine {
  readonly #capacityOf: CapacityLookup;
  readonly #fallback: CapacitySpec;
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #spinMarginMs: number;
  readonly #lookaheadMs: number;
  readonly #lateness: LatenessStats | undefined;
  readonly #onCallbackError: (error: unknown) => void;
  readonly #models = new Map<string, ModelState>();
  /** Jobs holding a slot (prefilling or decoding); compacted by each tick. */
  #active: Job[] = [];
  #timer: NodeJS.Timeout | undefined;
  #timerDueMs = Number.POSITIVE_INFINITY;
  #immediate: NodeJS.Immediate | undefined;
  #inTick = false;
  #closed = false;

  constructor(options: CapacityEngineOptions) {
    this.#capacityOf = options.capacityOf;
    this.#fallback = options.fallback ?? SHARED_MODEL_CAPACITY;
    this.#clock = options.clock ?? systemClock;
    this.#windowMs = options.queueAverageWindowMs ?? 5000;
    this.#spinMarginMs = options.spinMarginMs ?? 0;
    this.#lookaheadMs = options.lookaheadMs ?? 0.5;
    this.#lateness = options.lateness;
    this.#onCallbackError =
      options.onCallbackError ??
      ((error) =>
        setImmediate(() => {
          throw error;
        }));
  }

  nowMs(): number {
    return this.#clock.nowMs();
  }

  submit(job: EngineJob, callbacks: EngineCallbacks): EngineHandle {
    const nowMs = this.#clock.nowMs();
    const receivedMs = Math.min(nowMs, job.receivedMs ?? nowMs);
    const model = this.#model(job.modelId, nowMs);
    const entry = new Job(
      this,
      model,
      job.tier,
      job.inputTokens,
      Math.min(job.cachedTokens, job.inputTokens),
      Math.max(0, Math.floor(job.outputTokens)),
      job.seed | 0,
      callbacks,
      receivedMs,
      this.#clock.wallMs() - (nowMs - receivedMs),
    );
    if (this.#closed) {
      entry.state = JobState.Cancelled;
      return entry;
    }
    if (model.busySlots < model.spec.slots && model.queue.size === 0) {
      this.#start(entry, nowMs);
    } else {
      model.queue.push(entry);
      model.average.update(nowMs, model.signalMs(nowMs));
    }
    return entry;
  }

  averageQueueMs(modelId: string): number {
    const model = this.#models.get(modelId);
    if (model === undefined) return 0;
    const nowMs = this.#clock.nowMs();
    return model.average.update(nowMs, model.signalMs(nowMs));
  }

  /** Slots busy and requests waiting for a model (for tests, benchmarks and diagnostics). */
  load(modelId: string): { busySlots: number; queued: number; slots: number } {
    const model = this.#models.get(modelId);
    const spec = model?.spec ?? this.#capacityOf(modelId) ?? this.#fallback;
    return { busySlots: model?.busySlots ?? 0, queued: model?.queue.size ?? 0, slots: spec.slots };
  }

  /**
   * Every model's load: slots busy, queue by tier, and the tokens its running jobs hold (input plus
   * emitted), summed here over the active jobs so the request path keeps no running total. O(active).
   */
  loads(): readonly ModelLoad[] {
    for (const model of this.#models.values()) model.heldTokens = 0;
    for (const job of this.#active)
      if (job.state === JobState.Running) job.model.heldTokens += job.inputTokens + job.emitted;
    const loads: ModelLoad[] = [];
    for (const [modelId, model] of this.#models) {
      const queue = model.queue;
      loads.push({
        modelId,
        running: model.busySlots,
        waiting: { priority: queue.sizeOf('priority'), default: queue.sizeOf('default'), flex: queue.sizeOf('flex') },
        heldTokens: model.heldTokens,
      });
    }
    return loads;
  }

  close(): void {
    this.#closed = true;
    for (const job of this.#active) if (job.state === JobState.Running) job.state = JobState.Cancelled;
    this.#active = [];
    for (const model of this.#models.values()) {
      for (let job = model.queue.shift(); job !== undefined; job = model.queue.shift()) job.state = JobState.Cancelled;
      model.busySlots = 0;
    }
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
  }

  /** Called through a job's handle. */
  cancelJob(job: Job): void {
    if (job.state === JobState.Queued) {
      job.state = JobState.Cancelled;
      job.model.queue.noteCancelled(job);
    } else if (job.state === JobState.Running) {
      // Stays in #active until the next tick compacts it; the slot is free right away.
      job.state = JobState.Cancelled;
      this.#release(job.model, this.#clock.nowMs());
    }
  }

  #model(modelId: string, nowMs: number): ModelState {
    let model = this.#models.get(modelId);
    if (model === undefined) {
      model = new ModelState(this.#capacityOf(modelId) ?? this.#fallback, this.#windowMs, nowMs);
      this.#models.set(modelId, model);
    }
    return model;
  }

  /** Gives a job a slot: its queue time ends and its prompt processing begins. */
  #start(job: Job, nowMs: number): void {
    const model = job.model;
    const spec = model.spec;
    model.busySlots++;
    model.lastWaitMs = nowMs - job.submitMs;
    job.state = JobState.Running;
    job.slotMs = nowMs;

    const rng = createRng(job.seed ^ 0x5bd1e995);
    const jitter = Math.max(0, spec.jitter);
    const uncached = job.inputTokens - job.cachedTokens;
    const speedup = Math.min(1, Math.max(0, spec.cacheSpeedup));
    const prefillMs = ((uncached + job.cachedTokens * (1 - speedup)) / spec.prefillTokensPerS) * 1000;
    const promptMs = Math.max(spec.ttftFloorMs, prefillMs * (1 + jitter * (2 * rng.next() - 1)));
    job.firstTokenMs = nowMs + promptMs;
    // Each job decodes a little faster or slower (batch neighbours differ), which also keeps streams
    // that started together from finishing together forever.
    job.intervalMs = (1000 / spec.decodeTokensPerS) * (1 + jitter * (2 * rng.next() - 1));
    job.tokenJitter = Math.min(MAX_TOKEN_JITTER, jitter);
    job.nextDueMs = job.firstTokenMs;
    this.#active.push(job);
    model.average.update(nowMs, model.signalMs(nowMs));
    this.#wake(job.nextDueMs, nowMs);
  }

  /** A slot came free: hand it to the next job in tier order. */
  #release(model: ModelState, nowMs: number): void {
    model.busySlots--;
    const next = model.queue.shift();
    if (next !== undefined) this.#start(next, nowMs);
    else model.average.update(nowMs, model.signalMs(nowMs));
  }

  /** Makes sure the driver runs by `dueMs` (less the lookahead). */
  #wake(dueMs: number, nowMs: number): void {
    if (this.#inTick || this.#immediate !== undefined || this.#closed) return;
    const delayMs = dueMs - this.#lookaheadMs - nowMs;
    if (delayMs <= this.#spinMarginMs) {
      if (this.#timer !== undefined) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
        this.#timerDueMs = Number.POSITIVE_INFINITY;
      }
      this.#immediate = setImmediate(this.#tick);
      return;
    }
    if (this.#timer !== undefined && this.#timerDueMs <= dueMs) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerDueMs = dueMs;
    // Node's timers have millisecond granularity and fire late rather than early, hence floor.
    this.#timer = setTimeout(this.#tick, Math.max(1, Math.floor(delayMs - this.#spinMarginMs)));
  }

  readonly #tick = (): void => {
    this.#immediate = undefined;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#timerDueMs = Number.POSITIVE_INFINITY;
    if (this.#closed) return;

    this.#inTick = true;
    const lateness = this.#lateness;
    let nextDueMs = Number.POSITIVE_INFINITY;
    const lookaheadMs = this.#lookaheadMs;
    let nowMs = this.#clock.nowMs();
    const active = this.#active;
    let kept = 0;
    // active may grow during the loop (a finished job's slot goes to a queued job): those are visited too.
    for (let read = 0; read < active.length; read++) {
      const job = active[read] as Job;
      if (job.state !== JobState.Running) continue;
      if (job.nextDueMs > nowMs + lookaheadMs) {
        active[kept++] = job;
        if (job.nextDueMs < nextDueMs) nextDueMs = job.nextDueMs;
        continue;
      }
      // Fresh time for each job with work: earlier callbacks take time, and lateness must not hide it.
      nowMs = this.#clock.nowMs();
      const remaining = job.total - job.emitted;
      let count = 0;
      let due = job.nextDueMs;
      const horizonMs = nowMs + lookaheadMs;
      while (count < remaining && due <= horizonMs) {
        if (lateness !== undefined) lateness.record(nowMs - due);
        count++;
        if (count < remaining) due = job.dueMs(job.emitted + count);
      }
      if (job.emitted === 0 && count > 0) job.firstTokenActualMs = nowMs;
      job.emitted += count;
      if (job.emitted < job.total) {
        job.nextDueMs = due;
        active[kept++] = job;
        if (due < nextDueMs) nextDueMs = due;
        this.#deliver(job, count, nowMs);
        continue;
      }
      if (count > 0) this.#deliver(job, count, nowMs);
      // The writer may have cancelled the job (client gone) while taking its last tokens.
      if (job.state === JobState.Running) this.#finish(job);
    }
    active.length = kept;
    this.#inTick = false;
    if (kept > 0) this.#wake(nextDueMs, this.#clock.nowMs());
  };

  /** Hands tokens to the response writer; a throwing writer loses its job, never the other streams. */
  #deliver(job: Job, count: number, nowMs: number): void {
    try {
      job.callbacks.onTokens(count, nowMs);
    } catch (error) {
      this.#fail(job, error);
    }
  }

  #finish(job: Job): void {
    job.state = JobState.Done;
    const endMs = this.#clock.nowMs();
    try {
      job.callbacks.onFinish(this.#times(job, endMs));
    } catch (error) {
      this.#onCallbackError(error);
    }
    this.#release(job.model, endMs);
  }

  #fail(job: Job, error: unknown): void {
    this.cancelJob(job);
    this.#onCallbackError(error);
  }

  #times(job: Job, endMs: number): JobTimes {
    return {
      receivedMs: job.submitMs,
      slotMs: job.slotMs,
      firstTokenMs: job.firstTokenActualMs,
      doneMs: endMs,
      receivedWallMs: job.receivedWallMs,
    };
  }
}

/** Builds a CapacityEngine (the emulator's default engine). */
export function createCapacityEngine(options: CapacityEngineOptions): CapacityEngine {
  return new CapacityEngine(options);
}
