/**
 * The simplest Engine: no queue and no capacity limit; every job's first token is due `ttftMs` after
 * submission and each further token `interTokenMs` later. One shared timer ticks while jobs are live and
 * releases, per tick, every token that has come due for every job (batched into one callback per job),
 * so thousands of streams cost one timer, not one per token. The finish reports what really happened
 * (no queue: the slot is the submission, so queue_time is the time from reading the request to it).
 * The capacity engine (queues, slots, tiers) replaces this as the default later.
 */
import { systemClock, type Clock } from '../util/clock.js';
import type { Engine, EngineCallbacks, EngineHandle, EngineJob, ModelLoad } from './engine.js';

export interface FixedTimingOptions {
  /** Submission -> first token, ms. */
  readonly ttftMs?: number;
  /** Between consecutive tokens, ms. */
  readonly interTokenMs?: number;
  /** Timer period, ms (tokens due within a tick go out together). */
  readonly tickMs?: number;
  readonly clock?: Clock;
}

interface LiveJob {
  readonly job: EngineJob;
  readonly callbacks: EngineCallbacks;
  readonly receivedMs: number;
  readonly submittedMs: number;
  readonly receivedWallMs: number;
  readonly firstDueMs: number;
  firstSentMs: number;
  emitted: number;
  cancelled: boolean;
}

export class FixedTimingEngine implements Engine {
  readonly #ttftMs: number;
  readonly #interTokenMs: number;
  readonly #tickMs: number;
  readonly #clock: Clock;
  readonly #jobs = new Set<LiveJob>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: FixedTimingOptions = {}) {
    this.#ttftMs = options.ttftMs ?? 5;
    this.#interTokenMs = options.interTokenMs ?? 2;
    this.#tickMs = options.tickMs ?? 2;
    this.#clock = options.clock ?? systemClock;
  }

  nowMs(): number {
    return this.#clock.nowMs();
  }

  submit(job: EngineJob, callbacks: EngineCallbacks): EngineHandle {
    const now = this.#clock.nowMs();
    const receivedMs = Math.min(now, job.receivedMs ?? now);
    const live: LiveJob = {
      job,
      callbacks,
      receivedMs,
      submittedMs: now,
      receivedWallMs: this.#clock.wallMs() - (now - receivedMs),
      firstDueMs: now + this.#ttftMs,
      firstSentMs: Number.NaN,
      emitted: 0,
      cancelled: false,
    };
    this.#jobs.add(live);
    this.#arm();
    return {
      cancel: () => {
        live.cancelled = true;
        this.#jobs.delete(live);
      },
    };
  }

  /** No queue: requests never wait. */
  averageQueueMs(): number {
    return 0;
  }

  /** Every live job runs (no queue); each holds its input and the tokens it has emitted. */
  loads(): readonly ModelLoad[] {
    const byModel = new Map<string, { running: number; heldTokens: number }>();
    for (const live of this.#jobs) {
      const load = byModel.get(live.job.modelId) ?? { running: 0, heldTokens: 0 };
      load.running++;
      load.heldTokens += live.job.inputTokens + live.emitted;
      byModel.set(live.job.modelId, load);
    }
    return [...byModel].map(([modelId, load]) => ({
      modelId,
      ...load,
      waiting: { priority: 0, default: 0, flex: 0 },
    }));
  }

  close(): void {
    for (const live of this.#jobs) live.cancelled = true;
    this.#jobs.clear();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#tick(), this.#tickMs);
  }

  #tick(): void {
    const now = this.#clock.nowMs();
    for (const live of this.#jobs) {
      if (live.cancelled) continue;
      if (live.job.outputTokens === 0) {
        if (now >= live.firstDueMs) this.#finish(live, now);
        continue;
      }
      if (now < live.firstDueMs) continue;
      const due = Math.min(live.job.outputTokens, 1 + Math.floor((now - live.firstDueMs) / this.#interTokenMs));
      const count = due - live.emitted;
      if (count <= 0) continue;
      if (live.emitted === 0) live.firstSentMs = now;
      live.emitted = due;
      live.callbacks.onTokens(count, now);
      if (live.cancelled) continue;
      if (live.emitted >= live.job.outputTokens) this.#finish(live, now);
    }
    if (this.#jobs.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #finish(live: LiveJob, now: number): void {
    this.#jobs.delete(live);
    live.callbacks.onFinish({
      receivedMs: live.receivedMs,
      slotMs: live.submittedMs,
      firstTokenMs: live.firstSentMs,
      doneMs: now,
      receivedWallMs: live.receivedWallMs,
    });
  }
}
