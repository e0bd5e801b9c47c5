/**
 * The per-request facts every dialect is computed from, kept for the ok requests of one group while the run
 * lasts: the latency start, the first SSE event, the first and last chunk carrying generated text, the last
 * event with `choices`, the end of the response, the output tokens, the SSE events counted (all, and those
 * with `choices`) and the text chunks, and the gaps vLLM's ITL pools: between consecutive text chunks, and
 * the role -> first text and last text -> finish gaps. Other tools report percentiles of exact values
 * (numpy's), so the values themselves are kept, in typed arrays that grow by doubling: 9 numbers (72 B) a
 * request and 4 bytes a gap (integer microseconds), up to twice that while an array grows.
 *
 * Bounded: past REQUEST_CAP requests or GAP_CAP gaps, each table keeps a uniform reservoir sample
 * (Algorithm R, seeded, so a run's dialects are reproducible) of every request or gap seen, and the dialects
 * say they are sampled. The totals (requests, output tokens, the window) are counted over every request.
 * The two tables fill and sample independently: the per-request rows are a sample of the requests, the
 * gaps a sample of the gaps. Text-chunk gaps and vLLM's edge gaps share one reservoir (the edge gaps
 * tagged by the top bit), so vLLM's pool keeps their proportion.
 */
import type { RequestRecord } from '../../client/request-record.js';
import { createRng, type Rng } from '../../util/rng.js';

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
  /**
   * Of the events, those with a non-empty `choices` (a usage-only chunk is not one), and the time of the
   * last of them (the finish chunk, usually). Without such events (an API without `choices`), every event
   * and the last text chunk.
   */
  readonly choiceEvents: number;
  readonly lastChoiceUs: number;
}

const COLUMNS = 9;
/** Requests kept exactly; beyond, a uniform sample of this many (72 MB of rows, 144 MB while growing). */
export const REQUEST_CAP = 2 ** 20;
/** Gaps kept exactly; beyond, a uniform sample of this many (64 MB, 128 MB while growing). */
export const GAP_CAP = 2 ** 24;
const EDGE_BIT = 0x8000_0000;
const MAX_GAP_US = 0x7fff_ffff;
const DEFAULT_SEED = 0x1d1a_1ec7;

export interface DialectFactsOptions {
  readonly requestCap?: number;
  readonly gapCap?: number;
  readonly seed?: number;
}

/** A bounded Float64 table of RequestFacts plus the pooled gaps. */
export class DialectFacts {
  readonly #requestCap: number;
  readonly #gapCap: number;
  readonly #rng: Rng;
  #rows = new Float64Array(COLUMNS * 64);
  /** Rows kept (<= requestCap) and requests seen. */
  #kept = 0;
  #count = 0;
  #outputTokens = 0;
  #gaps = new Uint32Array(256);
  #gapsKept = 0;
  #gapsSeen = 0;
  /** requests() as last built, until the next push: the four dialects read one list. */
  #requests: RequestFacts[] | null = null;
  #sorted: { text: Uint32Array; edges: Uint32Array } | null = null;
  /** Earliest latency start and latest end (run clock, µs) of every request seen (sampled or not). */
  firstStartUs = Number.POSITIVE_INFINITY;
  lastEndUs = Number.NEGATIVE_INFINITY;
  /** Latest last-text time on the run clock, µs (AIPerf's last response). */
  lastTextAtUs = Number.NEGATIVE_INFINITY;

  constructor(options: DialectFactsOptions = {}) {
    this.#requestCap = options.requestCap ?? REQUEST_CAP;
    this.#gapCap = options.gapCap ?? GAP_CAP;
    this.#rng = createRng(options.seed ?? DEFAULT_SEED);
  }

  /** Requests seen (every one, sampled or not). */
  get count(): number {
    return this.#count;
  }

  /** Output tokens of every request seen. */
  get outputTokens(): number {
    return this.#outputTokens;
  }

  /** Gaps seen (text-chunk and edge gaps). */
  get gapCount(): number {
    return this.#gapsSeen;
  }

  /** The sample kept when either table outgrew its cap; undefined when every request and gap is kept. */
  get sample(): { readonly requests: number; readonly gaps: number } | undefined {
    if (this.#kept === this.#count && this.#gapsKept === this.#gapsSeen) return undefined;
    return { requests: this.#kept, gaps: this.#gapsKept };
  }

  /** Keeps an ok request that carried generated text; `outputTokens` as recorded (usage, or the client's estimate). */
  add(record: RequestRecord, outputTokens: number): void {
    const times = record.tokenChunkTimesUs;
    const start = record.latencyStartUs;
    if (times.length === 0 || Number.isNaN(start) || Number.isNaN(record.endUs)) return;
    const firstEvent = Number.isNaN(record.firstChunkUs) ? record.firstTokenUs : record.firstChunkUs;
    const withChoices = record.choiceChunkCount > 0;
    const lastChoice = withChoices && !Number.isNaN(record.lastChoiceUs) ? record.lastChoiceUs : record.lastTokenUs;
    this.push({
      firstEventUs: firstEvent - start,
      firstTextUs: record.firstTokenUs - start,
      lastTextUs: record.lastTokenUs - start,
      endUs: record.endUs - start,
      outputTokens: Number.isNaN(outputTokens) ? 0 : outputTokens,
      events: record.chunkCount,
      textChunks: times.length,
      choiceEvents: withChoices ? record.choiceChunkCount : record.chunkCount,
      lastChoiceUs: lastChoice - start,
    });
    for (let i = 1; i < times.length; i++) this.pushGap((times[i] as number) - (times[i - 1] as number));
    // vLLM's role -> first text and last text -> finish chunk samples.
    if (firstEvent < record.firstTokenUs) this.pushGap(record.firstTokenUs - firstEvent, true);
    if (lastChoice > record.lastTokenUs) this.pushGap(lastChoice - record.lastTokenUs, true);
    if (start < this.firstStartUs) this.firstStartUs = start;
    if (record.endUs > this.lastEndUs) this.lastEndUs = record.endUs;
    if (record.lastTokenUs > this.lastTextAtUs) this.lastTextAtUs = record.lastTokenUs;
  }

  /** Appends one request's facts (times relative to its start), or samples it in; add() is the way from a record. */
  push(facts: RequestFacts): void {
    this.#count++;
    this.#outputTokens += facts.outputTokens;
    this.#requests = null;
    let row = this.#kept;
    if (row >= this.#requestCap) {
      row = this.#rng.int(0, this.#count - 1);
      if (row >= this.#requestCap) return;
    } else {
      if ((row + 1) * COLUMNS > this.#rows.length) this.#rows = grown(this.#rows, this.#requestCap * COLUMNS);
      this.#kept++;
    }
    const at = row * COLUMNS;
    const rows = this.#rows;
    rows[at] = facts.firstEventUs;
    rows[at + 1] = facts.firstTextUs;
    rows[at + 2] = facts.lastTextUs;
    rows[at + 3] = facts.endUs;
    rows[at + 4] = facts.outputTokens;
    rows[at + 5] = facts.events;
    rows[at + 6] = facts.textChunks;
    rows[at + 7] = facts.choiceEvents;
    rows[at + 8] = facts.lastChoiceUs;
  }

  /** Appends one gap, µs: between consecutive text chunks, or (edge) one only vLLM counts. */
  pushGap(gapUs: number, edge = false): void {
    this.#gapsSeen++;
    this.#sorted = null;
    let at = this.#gapsKept;
    if (at >= this.#gapCap) {
      at = this.#rng.int(0, this.#gapsSeen - 1);
      if (at >= this.#gapCap) return;
    } else {
      if (at === this.#gaps.length) this.#gaps = grown(this.#gaps, this.#gapCap);
      this.#gapsKept++;
    }
    const value = gapUs > 0 ? Math.min(Math.round(gapUs), MAX_GAP_US) : 0;
    this.#gaps[at] = edge ? (value | EDGE_BIT) >>> 0 : value;
  }

  /** Kept request `i`'s facts (allocates: for the end of the run, not the hot path). */
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
      choiceEvents: rows[at + 7] as number,
      lastChoiceUs: rows[at + 8] as number,
    };
  }

  /** Every kept request's facts (all of them unless sampled; built once per state: the dialects share it). */
  requests(): readonly RequestFacts[] {
    this.#requests ??= Array.from({ length: this.#kept }, (_, i) => this.request(i));
    return this.#requests;
  }

  /** The kept gaps between consecutive text chunks, µs, ascending (sorted once per state: the dialects share it). */
  sortedGaps(): Uint32Array {
    return this.#split().text;
  }

  /** The kept edge gaps (role -> first text, last text -> finish chunk), µs, ascending. */
  sortedEdgeGaps(): Uint32Array {
    return this.#split().edges;
  }

  #split(): { text: Uint32Array; edges: Uint32Array } {
    if (this.#sorted !== null) return this.#sorted;
    const kept = this.#gaps.subarray(0, this.#gapsKept);
    let edgeCount = 0;
    for (let i = 0; i < kept.length; i++) if ((kept[i] as number) >= EDGE_BIT) edgeCount++;
    const text = new Uint32Array(kept.length - edgeCount);
    const edges = new Uint32Array(edgeCount);
    let t = 0;
    let e = 0;
    for (let i = 0; i < kept.length; i++) {
      const value = kept[i] as number;
      if (value >= EDGE_BIT) edges[e++] = value - EDGE_BIT;
      else text[t++] = value;
    }
    this.#sorted = { text: text.sort(), edges: edges.sort() };
    return this.#sorted;
  }
}

/** `array` doubled, but never past `cap` elements. */
function grown<T extends Float64Array | Uint32Array>(array: T, cap: number): T {
  const next = new (array.constructor as new (length: number) => T)(Math.min(array.length * 2, Math.max(cap, 1)));
  next.set(array);
  return next;
}
