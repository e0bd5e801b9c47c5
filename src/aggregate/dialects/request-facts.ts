/**
 * The per-request facts every dialect is computed from, kept for the ok requests of one group while the run
 * lasts: the latency start, the first SSE event, the first and last chunk carrying generated text, the end
 * of the response, the output tokens, the SSE events and text chunks counted, and every gap between
 * consecutive text chunks (pooled). Other tools report percentiles of exact values (numpy's), so the
 * values themselves are kept, in typed arrays that grow by doubling: 7 numbers a request and 4 bytes a
 * chunk gap (integer microseconds), about 12 MB for three million chunks.
 */
import type { RequestRecord } from '../../client/request-record.js';

/** One request's facts, times in microseconds since its latency start. */
export interface RequestFacts {
  /** First SSE data event of any kind (a role-only chunk included). */
  readonly firstEventUs: number;
  /** First and last chunk carrying generated text (content, reasoning or tool-call arguments). */
  readonly firstTextUs: number;
  readonly lastTextUs: number;
  /** End of the response (end marker or end of body). */
  readonly endUs: number;
  readonly outputTokens: number;
  /** SSE data events (JSON events; a [DONE] marker is not one) and, of them, the chunks carrying text. */
  readonly events: number;
  readonly textChunks: number;
}

const COLUMNS = 7;

/** A growable Float64 table of RequestFacts plus the pooled text-chunk gaps. */
export class DialectFacts {
  #rows = new Float64Array(COLUMNS * 64);
  #count = 0;
  #gaps = new Uint32Array(256);
  #gapCount = 0;
  /** requests() as last built, until the next push: the four dialects read one list. */
  #requests: RequestFacts[] | null = null;
  #sortedGaps: Uint32Array | null = null;
  /** Earliest latency start and latest end (run clock, µs) of the requests kept. */
  firstStartUs = Number.POSITIVE_INFINITY;
  lastEndUs = Number.NEGATIVE_INFINITY;
  /** Latest last-text time on the run clock, µs (AIPerf's last response). */
  lastTextAtUs = Number.NEGATIVE_INFINITY;

  get count(): number {
    return this.#count;
  }

  get gapCount(): number {
    return this.#gapCount;
  }

  /** Keeps an ok request that carried generated text; `outputTokens` as recorded (usage, or the client's estimate). */
  add(record: RequestRecord, outputTokens: number): void {
    const times = record.tokenChunkTimesUs;
    const start = record.latencyStartUs;
    if (times.length === 0 || Number.isNaN(start) || Number.isNaN(record.endUs)) return;
    const firstEvent = Number.isNaN(record.firstChunkUs) ? record.firstTokenUs : record.firstChunkUs;
    this.push({
      firstEventUs: firstEvent - start,
      firstTextUs: record.firstTokenUs - start,
      lastTextUs: record.lastTokenUs - start,
      endUs: record.endUs - start,
      outputTokens: Number.isNaN(outputTokens) ? 0 : outputTokens,
      events: record.chunkCount,
      textChunks: times.length,
    });
    for (let i = 1; i < times.length; i++) this.pushGap((times[i] as number) - (times[i - 1] as number));
    if (start < this.firstStartUs) this.firstStartUs = start;
    if (record.endUs > this.lastEndUs) this.lastEndUs = record.endUs;
    if (record.lastTokenUs > this.lastTextAtUs) this.lastTextAtUs = record.lastTokenUs;
  }

  /** Appends one request's facts (times relative to its start); add() is the way from a record. */
  push(facts: RequestFacts): void {
    if ((this.#count + 1) * COLUMNS > this.#rows.length) {
      const grown = new Float64Array(this.#rows.length * 2);
      grown.set(this.#rows);
      this.#rows = grown;
    }
    const at = this.#count * COLUMNS;
    const rows = this.#rows;
    rows[at] = facts.firstEventUs;
    rows[at + 1] = facts.firstTextUs;
    rows[at + 2] = facts.lastTextUs;
    rows[at + 3] = facts.endUs;
    rows[at + 4] = facts.outputTokens;
    rows[at + 5] = facts.events;
    rows[at + 6] = facts.textChunks;
    this.#count++;
    this.#requests = null;
  }

  /** Appends one gap between consecutive text chunks, µs. */
  pushGap(gapUs: number): void {
    if (this.#gapCount === this.#gaps.length) {
      const grown = new Uint32Array(this.#gaps.length * 2);
      grown.set(this.#gaps);
      this.#gaps = grown;
    }
    this.#gaps[this.#gapCount++] = gapUs > 0 ? Math.round(gapUs) : 0;
  }

  /** Request `i`'s facts (allocates: for the end of the run, not the hot path). */
  request(i: number): RequestFacts {
    const at = i * COLUMNS;
    const rows = this.#rows;
    return {
      firstEventUs: rows[at] as number,
      firstTextUs: rows[at + 1] as number,
      lastTextUs: rows[at + 2] as number,
      endUs: rows[at + 3] as number,
      outputTokens: rows[at + 4] as number,
      events: rows[at + 5] as number,
      textChunks: rows[at + 6] as number,
    };
  }

  /** Every request's facts, in the order kept (built once per state: the dialects share it). */
  requests(): readonly RequestFacts[] {
    this.#requests ??= Array.from({ length: this.#count }, (_, i) => this.request(i));
    return this.#requests;
  }

  /** The pooled text-chunk gaps, µs, ascending (sorted once per state: the dialects share it). */
  sortedGaps(): Uint32Array {
    if (this.#sortedGaps === null || this.#sortedGaps.length !== this.#gapCount)
      this.#sortedGaps = this.#gaps.slice(0, this.#gapCount).sort();
    return this.#sortedGaps;
  }
}
