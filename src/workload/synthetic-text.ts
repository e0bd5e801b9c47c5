/**
 * Fast token-exact synthetic text. Building each prompt piece by piece costs ~0.1 ms per 2,000 tokens, so
 * each workload builds one long run of one-token pieces once (util/token-text.ts) and a request takes a
 * seeded window of it: an opener and two seeded words (so that no two requests share a prefix the
 * server could cache), then the window as one substring. Every piece is one o200k pretoken and one
 * token, and a window always follows a word piece, so N pieces are exactly N tokens.
 */
import type { LengthDistribution } from '../profile/resolved-profile.js';
import type { Rng } from '../util/rng.js';
import { createRng } from '../util/rng.js';
import { generateTokenPieces, tokenVocabulary } from '../util/token-text.js';

/** Pieces in the pool at least; more when prompts can be longer than half of it. */
const MIN_POOL_PIECES = 32_768;
const MAX_POOL_PIECES = 1 << 21;

export interface SyntheticText {
  /**
   * Exactly `count` tokens. With `afterPrefix` the text continues another text (it starts with " word");
   * otherwise it starts with a capitalised opener.
   */
  text(rng: Rng, count: number, afterPrefix: boolean): string;
}

/** The largest length a distribution can give. */
export function maxLength(length: LengthDistribution): number {
  return length.dist === 'fixed' ? length.value : length.max;
}

export function createSyntheticText(seed: number, longestCount: number): SyntheticText {
  const { words, openers } = tokenVocabulary();
  const poolPieces = Math.min(MAX_POOL_PIECES, Math.max(MIN_POOL_PIECES, 2 * longestCount));
  // start = false: the pool begins with a " word" piece, and never has two punctuation pieces in a row.
  const pieces = generateTokenPieces(createRng(seed), poolPieces, false);
  const pool = pieces.join('');
  const offsets = new Int32Array(poolPieces + 1);
  for (let i = 0; i < poolPieces; i++) offsets[i + 1] = offsets[i]! + pieces[i]!.length;
  return {
    text(rng, count, afterPrefix) {
      if (count <= 0) return '';
      let head = afterPrefix ? words[rng.int(0, words.length - 1)]! : openers[rng.int(0, openers.length - 1)]!;
      let rest = count - 1;
      for (let i = 0; i < 2 && rest > 0; i++, rest--) head += words[rng.int(0, words.length - 1)]!;
      if (rest === 0) return head;
      if (rest > poolPieces) return head + generateTokenPieces(rng, rest, false).join('');
      const start = rng.int(0, poolPieces - rest);
      return head + pool.substring(offsets[start]!, offsets[start + rest]!);
    },
  };
}
