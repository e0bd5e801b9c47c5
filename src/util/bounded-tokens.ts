/**
 * Counting text the harness did not write (a server's answer) in linear time and in resumable slices, so
 * no answer can hold the event loop. BPE tokenizers are quadratic in the length of one pretoken
 * (js-tiktoken: 1,000 `x` take about 0.1 s, 4,000 over a second), and a degenerate answer can be one
 * 8 MiB run of one character.
 *
 * The bound: text is cut into pieces of at most MAX_PIECE_CHARS, each counted on its own.
 * - Cuts fall before a space that follows a non-space character. No o200k pretoken crosses such a point
 *   (a pretoken holding a space either starts with it or is all whitespace), so for ordinary text the
 *   sum over pieces equals the whole text's count exactly.
 * - A stretch without such a point longer than MAX_RUN_CHARS (a run of one character, a long URL,
 *   base64, a long run of newlines) is cut every MAX_RUN_CHARS characters (never inside a surrogate
 *   pair). Each of these cuts can change the count by about one token (a token split in two), i.e. by at
 *   most 1 in MAX_RUN_CHARS characters: fine for an estimate or for a tolerance check. No tokenizer call
 *   then sees more than MAX_PIECE_CHARS characters or a pretoken longer than MAX_RUN_CHARS + 1, so the
 *   cost is linear in the text's length. Fixed-cut pieces repeat in degenerate text (a run of one
 *   character is one piece over and over), so their counts are cached.
 */
import type { Tokenizer } from './tokenizer.js';

/** Longest stretch without a natural cut point; beyond it the text is cut at fixed intervals. */
export const MAX_RUN_CHARS = 64;
/** Longest piece handed to the tokenizer at once. */
export const MAX_PIECE_CHARS = 1024;
/** Fixed-cut pieces whose counts are remembered (per tokenizer), cleared when full. */
const CACHE_ENTRIES = 4096;

const SPACE = 0x20;

function isWhitespace(code: number): boolean {
  return (
    code === SPACE ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0xa0 ||
    code === 0x85 ||
    (code > 0xff && /\s/.test(String.fromCharCode(code)))
  );
}

/** A fixed cut at `at` moved off the middle of a surrogate pair. */
function fixedCut(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

/** indexOf(' ') with a memory: the last answer serves every later query up to it (a long run is scanned once). */
export class SpaceFinder {
  readonly #text: string;
  #queriedFrom = Number.POSITIVE_INFINITY;
  #found = -1;

  constructor(text: string) {
    this.#text = text;
  }

  /** Index of the first space at or after `from`, or -1. */
  at(from: number): number {
    if (from >= this.#queriedFrom && (this.#found === -1 || from <= this.#found)) return this.#found;
    this.#queriedFrom = from;
    this.#found = this.#text.indexOf(' ', from);
    return this.#found;
  }
}

/**
 * End of the piece that starts at `from` (exclusive), and whether it was cut at a fixed interval (a piece
 * of a long run) rather than at a natural point. `spaces` must be a SpaceFinder of the same text.
 */
export function nextPieceEnd(
  text: string,
  from: number,
  spaces = new SpaceFinder(text),
): { end: number; fixed: boolean } {
  const n = text.length;
  if (n - from <= MAX_RUN_CHARS) return { end: n, fixed: false };
  let last = from;
  for (;;) {
    let space = spaces.at(last + 1);
    // A space after whitespace is inside a whitespace run: not a cut point.
    while (space !== -1 && space - last <= MAX_RUN_CHARS && isWhitespace(text.charCodeAt(space - 1)))
      space = spaces.at(space + 1);
    const next = space === -1 ? n : space;
    if (next - last > MAX_RUN_CHARS) {
      if (last > from) return { end: last, fixed: false };
      const end = fixedCut(text, from + MAX_RUN_CHARS);
      return { end: end > from ? end : from + MAX_RUN_CHARS, fixed: true };
    }
    if (next - from > MAX_PIECE_CHARS) return { end: last, fixed: false };
    if (next >= n) return { end: n, fixed: false };
    last = next;
  }
}

const caches = new WeakMap<Tokenizer, Map<string, number>>();

function countPiece(tokenizer: Tokenizer, piece: string, fixed: boolean): number {
  if (!fixed) return tokenizer.count(piece);
  let cache = caches.get(tokenizer);
  if (!cache) {
    cache = new Map();
    caches.set(tokenizer, cache);
  }
  let count = cache.get(piece);
  if (count === undefined) {
    count = tokenizer.count(piece);
    if (cache.size >= CACHE_ENTRIES) cache.clear();
    cache.set(piece, count);
  }
  return count;
}

/**
 * A resumable count of one text: step() counts pieces until a deadline, so a caller can spread a large
 * text over many turns of the event loop.
 */
export class TokenCountJob {
  readonly #tokenizer: Tokenizer;
  readonly #text: string;
  readonly #spaces: SpaceFinder;
  #at = 0;
  #tokens = 0;

  constructor(tokenizer: Tokenizer, text: string) {
    this.#tokenizer = tokenizer;
    this.#text = text;
    this.#spaces = new SpaceFinder(text);
  }

  get done(): boolean {
    return this.#at >= this.#text.length;
  }

  /** Tokens counted so far (the whole count once done). */
  get tokens(): number {
    return this.#tokens;
  }

  /**
   * Counts pieces until `untilMs` (performance.now()) has passed, at least one piece. Returns true when
   * the whole text is counted.
   */
  step(untilMs: number): boolean {
    const text = this.#text;
    while (this.#at < text.length) {
      const { end, fixed } = nextPieceEnd(text, this.#at, this.#spaces);
      this.#tokens += countPiece(this.#tokenizer, text.slice(this.#at, end), fixed);
      this.#at = end;
      if (performance.now() >= untilMs) break;
    }
    return this.done;
  }

  /**
   * Ends the count now: the rest of the text is estimated from the tokens per character counted so far
   * (or one token per 4 characters when nothing was counted). For a run that must stop at once.
   */
  extrapolate(): number {
    const rest = this.#text.length - this.#at;
    if (rest > 0) {
      this.#tokens += Math.round(this.#at > 0 ? (rest * this.#tokens) / this.#at : rest / 4);
      this.#at = this.#text.length;
    }
    return this.#tokens;
  }
}

/** The bounded count of `text` in one call (linear, but a large text still takes its time). */
export function countTokensBounded(tokenizer: Tokenizer, text: string): number {
  const job = new TokenCountJob(tokenizer, text);
  job.step(Number.POSITIVE_INFINITY);
  return job.tokens;
}
