/**
 * Exact token counts for a BPE tokenizer that splits text into pretokens with one regex (tiktoken), with
 * each pretoken's count remembered. js-tiktoken's encode() pays a fixed cost per call (it builds its
 * regexes and sets again each time) and one per pretoken (encoding the bytes and joining them into a map
 * key); counting the short answers of a busy run spent most of its time there. Ordinary text repeats
 * its words, so most pretokens are counted once and then looked up.
 *
 * Why it is exact: encode(text) is the sum over the pattern's matches of each match's BPE count (with no
 * special tokens allowed, the whole text is one matchAll). A match is counted as encode(match) only when
 * the pattern, run on the match alone, gives the match back whole, so encode(match) is that one pretoken's
 * BPE count; should it not (a lookahead that sees the end of the piece instead of the text after it), the
 * whole text is counted by encode() instead.
 */

/** Pretoken counts remembered; the cache is emptied when full. */
const CACHE_ENTRIES = 65_536;
/** Longer pretokens are counted each time (rare, and they would crowd the cache). */
const MAX_CACHED_CHARS = 64;

/** A counter equal to `encodeCount` for every text, faster on text whose pretokens repeat. */
export function pretokenCounter(pattern: string, encodeCount: (text: string) => number): (text: string) => number {
  const pretokens = new RegExp(pattern, 'ug');
  const single = new RegExp(pattern, 'ug');
  const cache = new Map<string, number>();

  /** True when the pattern, run on `piece` alone, matches all of it at once. */
  const isWholePretoken = (piece: string): boolean => {
    single.lastIndex = 0;
    const match = single.exec(piece);
    return match !== null && match.index === 0 && match[0].length === piece.length;
  };

  return (text) => {
    let total = 0;
    for (const match of text.matchAll(pretokens)) {
      const piece = match[0];
      let count = cache.get(piece);
      if (count === undefined) {
        if (!isWholePretoken(piece)) return encodeCount(text);
        count = encodeCount(piece);
        if (piece.length <= MAX_CACHED_CHARS) {
          if (cache.size >= CACHE_ENTRIES) cache.clear();
          cache.set(piece, count);
        }
      }
      total += count;
    }
    return total;
  };
}
