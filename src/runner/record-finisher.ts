/**
 * What happens to a request once it has ended, a moment later and off the hot path: its token counts are
 * made once and its values derived once from them (STYLE 13), and handed, with the record, to `deliver`
 * (the collector and the requests.csv sink), in the order requests ended.
 *
 * Counting is the expensive part: the client's tokenizer runs on the received text when the server sent
 * no usage (the estimate) and, with usage, for the mismatch check. It runs through the bounded counter
 * (util/bounded-tokens.ts: linear in the text) in resumable slices of a SlicedQueue, so an answer of
 * megabytes is counted over many turns of the event loop, each a fraction of a millisecond to a few
 * milliseconds, while reads, sends, timers and signals go on. The check is sampled beyond a token budget
 * per second (the first answers of each second are checked), so it never becomes the bottleneck;
 * estimates are always made (they are the only count there is).
 *
 * hurry() is for an interrupted run that must end within its graceful stop: from then on checks are
 * skipped and each estimate still being made is finished by extrapolating from the part counted so far
 * (still flagged estimated), so draining takes at most about one slice per queued record.
 */
import type { RequestRecord } from '../client/request-record.js';
import type { FluidityDeadlines } from '../measure/fluidity.js';
import { fillRecordedValues } from '../measure/request-values.js';
import { createTokenCounts, fillTokenCounts } from '../measure/token-counts.js';
import { createRecordedValues, type RecordedValues } from '../metrics/request-values.js';
import { TokenCountJob } from '../util/bounded-tokens.js';
import { SlicedQueue } from '../util/sliced-queue.js';
import type { Tokenizer } from '../util/tokenizer.js';

/**
 * Checking an answer against the server's usage costs about 1 µs per token for ordinary text; above
 * this many checked tokens per second the check is sampled.
 */
export const TOKEN_CHECK_BUDGET_PER_S = 50_000;
/** With more records than this waiting, checks are skipped (counted as unchecked, like sampled ones). */
const MAX_QUEUED_CHECKS = 8192;

export interface RecordFinisherOptions {
  readonly tokenizer: Tokenizer;
  /**
   * Receives each finished record with its values (measure/request-values.ts, from the counts made here).
   * `values` is reused for the next record: read it during the call, copy it to keep it.
   */
  readonly deliver: (record: RequestRecord, values: RecordedValues) => void;
  /** The profile's `deadlines:` (ResolvedProfile.deadlines), for fluidity_index; absent or null: none. */
  readonly deadlines?: FluidityDeadlines | null;
  /** RunnerDeps.recordFinishing; absent: `sliced`. */
  readonly finishing?: RecordFinishing;
}

/**
 * How ended records are finished: `sliced` in 0.1 ms slices between I/O, the first after a 1 ms real timer
 * (so the sockets' writes and reads go first); `next-turn` all at once in the next turn, for a run in
 * virtual time (no sockets to let go first, and a real timer would make every move of its clock wait).
 */
export type RecordFinishing = 'sliced' | 'next-turn';

export class RecordFinisher {
  readonly #tokenizer: Tokenizer;
  readonly #deliver: RecordFinisherOptions['deliver'];
  readonly #deadlines: FluidityDeadlines | null;
  readonly #queue: SlicedQueue<RequestRecord>;
  readonly #tokens = createTokenCounts();
  readonly #values = createRecordedValues();
  /** The record at the head whose text is being counted, and its jobs (null: nothing to count). */
  #active: RequestRecord | null = null;
  #output: TokenCountJob | null = null;
  #reasoning: TokenCountJob | null = null;
  #hurry = false;
  #budgetSecond = -1;
  #budgetTokens = 0;

  constructor(options: RecordFinisherOptions) {
    this.#tokenizer = options.tokenizer;
    this.#deliver = options.deliver;
    this.#deadlines = options.deadlines ?? null;
    const handle = (record: RequestRecord, untilMs: number) => this.#handle(record, untilMs);
    this.#queue =
      options.finishing === 'next-turn'
        ? new SlicedQueue<RequestRecord>(handle, Number.POSITIVE_INFINITY, 'immediate')
        : new SlicedQueue<RequestRecord>(handle);
  }

  /** Records waiting (the one being counted included). */
  get size(): number {
    return this.#queue.size;
  }

  /** Queues a record that has just ended. */
  push(record: RequestRecord): void {
    this.#queue.push(record);
  }

  /** From now on: no checks, estimates finished by extrapolation (see the file comment). */
  hurry(): void {
    this.#hurry = true;
  }

  /** Resolves when every queued record has been delivered; slices keep yielding to I/O meanwhile. */
  drained(): Promise<void> {
    return this.#queue.drained();
  }

  #handle(record: RequestRecord, untilMs: number): boolean {
    if (this.#active !== record) this.#start(record);
    const output = this.#output;
    const reasoning = this.#reasoning;
    if (output !== null && reasoning !== null) {
      const estimate = record.usage === null;
      if (this.#hurry && !estimate) {
        this.#output = null;
        this.#reasoning = null;
      } else if (this.#hurry) {
        output.step(untilMs);
        reasoning.step(untilMs);
        output.extrapolate();
        reasoning.extrapolate();
      } else if (!output.step(untilMs) || !reasoning.step(untilMs)) {
        return false;
      }
    }
    this.#finish(record);
    return true;
  }

  /** Decides what the tokenizer must count for `record`: the estimate, the check, or nothing. */
  #start(record: RequestRecord): void {
    this.#active = record;
    this.#output = null;
    this.#reasoning = null;
    const hasText = record.outputText.length > 0 || record.reasoningText.length > 0;
    let count = false;
    if (record.usage === null) {
      count = hasText;
    } else if (hasText && !record.warmup && record.errorClass === null && !this.#hurry) {
      const second = Math.floor(record.endUs / 1_000_000);
      if (second !== this.#budgetSecond) {
        this.#budgetSecond = second;
        this.#budgetTokens = 0;
      }
      const reported = record.usage.completion_tokens;
      count = this.#budgetTokens + reported <= TOKEN_CHECK_BUDGET_PER_S && this.#queue.size <= MAX_QUEUED_CHECKS;
      if (count) this.#budgetTokens += reported;
    }
    if (count) {
      this.#output = new TokenCountJob(this.#tokenizer, record.outputText);
      this.#reasoning = new TokenCountJob(this.#tokenizer, record.reasoningText);
    }
  }

  #finish(record: RequestRecord): void {
    const output = this.#output;
    const reasoning = this.#reasoning;
    const counted = output !== null && reasoning !== null;
    fillTokenCounts(record, counted ? { output: output.tokens, reasoning: reasoning.tokens } : null, this.#tokens);
    if (record.usage === null && !counted && Number.isNaN(record.inputs)) {
      // No usage and no text: nothing was generated that the client saw (embeddings generate nothing: no count).
      this.#tokens.output = 0;
      this.#tokens.reasoning = 0;
      this.#tokens.estimated = true;
    }
    this.#active = null;
    this.#output = null;
    this.#reasoning = null;
    this.#deliver(record, fillRecordedValues(record, this.#tokens, this.#values, this.#deadlines));
  }
}
