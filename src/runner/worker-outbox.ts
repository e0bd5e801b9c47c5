/**
 * A worker thread's side of the run's numbers (`run --workers`): a RunCollector that records nothing here
 * and forwards every start and drop, and every finished record with its values, to the coordinator, in
 * batches (one postMessage per batch, never per request: a message costs a structured clone and a wake-up
 * of the coordinator). A batch leaves when it is full or, at the latest, `flushMs` after its first event,
 * so the coordinator's progress line and in-flight count stay current.
 */
import type { RequestRecord } from '../client/request-record.js';
import type { ProgressSnapshot, RunCollector } from '../aggregate/types.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { WorkerEvent, WorkerMessage } from './worker-protocol.js';

/** Events per message: large enough to amortise the clone, small enough to keep messages short. */
const BATCH_EVENTS = 256;
const FLUSH_MS = 25;

const EMPTY_PROGRESS: ProgressSnapshot = {
  elapsedMs: 0,
  started: 0,
  completed: 0,
  failed: 0,
  throttled: 0,
  dropped: 0,
  inFlight: 0,
  requestsPerS: 0,
  outputTokensPerS: 0,
  ttftP50Ms: null,
};

export class WorkerOutbox {
  readonly #post: (message: WorkerMessage) => void;
  #events: WorkerEvent[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(post: (message: WorkerMessage) => void) {
    this.#post = post;
  }

  /** The collector runProfile is given in a worker: the coordinator's collector counts, not this one. */
  readonly collector: RunCollector = {
    started: (groupIndex, atUs) => this.#add(['started', groupIndex, atUs]),
    dropped: (groupIndex, atUs) => this.#add(['dropped', groupIndex, atUs]),
    // Measured records arrive through record() with the warmup ones (runProfile's onRecord sees both).
    completed: () => undefined,
    progress: () => EMPTY_PROGRESS,
    finish: () => ({ groups: [], timeSeries: [] }),
  };

  /**
   * A finished request (warmup included). `values` is reused by the caller, so it is copied; the answer
   * text is left out, since its tokens are counted in `values` already and it would only cost the clone.
   */
  record(record: RequestRecord, values: RecordedValues): void {
    this.#add([
      'record',
      { ...record, outputText: '', reasoningText: '', content: '', toolCalls: null },
      { ...values },
    ]);
  }

  /** Sends what is waiting now (before `done`, and when a batch is full). */
  flush(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#events.length === 0) return;
    const events = this.#events;
    this.#events = [];
    this.#post({ type: 'events', events });
  }

  #add(event: WorkerEvent): void {
    this.#events.push(event);
    if (this.#events.length >= BATCH_EVENTS) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }
}
