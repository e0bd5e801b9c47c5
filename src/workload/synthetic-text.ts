/**
 * Fast token-exact synthetic text. Building each prompt piece by piece costs ~0.1 ms per 2,000 tokens, so
 * each workload builds one long run of one-token pieces once (util/token-text.ts) and a request takes a
 * seeded window of it: an opener and two seeded words (so that no two requests share a prefix the
 * server could cache), then the window as one substring. Every piece is one pretoken and one token,
 * and a window always follows a word piece, so N pieces are exactly N tokens.
 *
 * With a profile's own tokenizer the pieces are its one-token pieces (util/token-text.ts), and that
 * premise is checked here once per tokenizer, when its first workload is built: a seeded run of 16,384
 * pieces must encode to exactly that many tokens (a tokenizer whose merges cross a word boundary fails, as
 * a profile error, rather than sending prompts of the wrong length). The run is a function of the
 * tokenizer alone (its vocabulary and one fixed seed), so a profile of many groups encodes it once, not
 * once per group; each workload still checks its own texts (workload/prompt-sources.ts). Requests never
 * call the tokenizer.
 */
import { InferbenchError } from '../errors.js';
import type { LengthDistribution } from '../profile/resolved-profile.js';
import type { Rng } from '../util/rng.js';
import { createRng } from '../util/rng.js';
import { generateTokenPieces, type TokenVocabulary, tokenVocabulary } from '../util/token-text.js';
import type { EncodingTokenizer } from '../util/tokenizer.js';

/** Pieces in the pool at least; more when prompts can be longer than half of it. */
const MIN_POOL_PIECES = 32_768;
const MAX_POOL_PIECES = 1 << 21;
/** Pieces encoded to check a named tokenizer (every piece and kind of transition occurs in them many times). */
const CHECKED_PIECES = 16_384;
/** The seed of the checked pieces: fixed, so that the check is the tokenizer's, made once (not the pool's). */
const CHECK_SEED = 0x5eed;
/** A named tokenizer -> the tokens its CHECKED_PIECES checked pieces encode to (CHECKED_PIECES when exact). */
const checkedTokens = new WeakMap<EncodingTokenizer, number>();

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

/**
 * `named`: a profile's tokenizer, whose one-token pieces the text is made of; null: o200k (the default,
 * nothing checked: its vocabulary is fixed and tested).
 */
export function createSyntheticText(
  seed: number,
  longestCount: number,
  named: EncodingTokenizer | null = null,
): SyntheticText {
  const vocab = tokenVocabulary(named ?? undefined);
  const { words, openers } = vocab;
  const poolPieces = Math.min(MAX_POOL_PIECES, Math.max(MIN_POOL_PIECES, 2 * longestCount));
  // start = false: the pool begins with a " word" piece, and never has two punctuation pieces in a row.
  const pieces = generateTokenPieces(createRng(seed), poolPieces, false, [], vocab);
  const pool = pieces.join('');
  const offsets = new Int32Array(poolPieces + 1);
  for (let i = 0; i < poolPieces; i++) offsets[i + 1] = offsets[i]! + pieces[i]!.length;
  if (named !== null) checkPieces(named, vocab);
  return {
    text(rng, count, afterPrefix) {
      if (count <= 0) return '';
      let head = afterPrefix ? words[rng.int(0, words.length - 1)]! : openers[rng.int(0, openers.length - 1)]!;
      let rest = count - 1;
      for (let i = 0; i < 2 && rest > 0; i++, rest--) head += words[rng.int(0, words.length - 1)]!;
      if (rest === 0) return head;
      if (rest > poolPieces) return head + generateTokenPieces(rng, rest, false, [], vocab).join('');
      const start = rng.int(0, poolPieces - rest);
      return head + pool.substring(offsets[start]!, offsets[start + rest]!);
    },
  };
}

/** Throws BAD_PROFILE unless a run of `named`'s pieces encodes to one token each (encoded once per tokenizer). */
function checkPieces(named: EncodingTokenizer, vocab: TokenVocabulary): void {
  let tokens = checkedTokens.get(named);
  if (tokens === undefined) {
    tokens = named.count(generateTokenPieces(createRng(CHECK_SEED), CHECKED_PIECES, false, [], vocab).join(''));
    checkedTokens.set(named, tokens);
  }
  if (tokens !== CHECKED_PIECES) throw notExact(named, `${CHECKED_PIECES} one-token pieces encode to ${tokens} tokens`);
}

/** The profile error of a tokenizer whose text is not the sum of its pieces. */
export function notExact(named: EncodingTokenizer, what: string): InferbenchError {
  return new InferbenchError(
    'BAD_PROFILE',
    `target.tokenizer ${named.name}: cannot build token-exact prompts (${what})`,
    {
      hint: 'its merges cross word boundaries; use prompt.dataset with this tokenizer, or leave target.tokenizer out (o200k_base)',
    },
  );
}
