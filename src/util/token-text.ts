/**
 * Text with an exact, known number of tokens, from a seeded Rng: the emulator's generated output and the
 * harness's synthetic prompts. Each piece is one pretoken and one token (" word", ".", ","), so a
 * concatenation of N pieces encodes to exactly N tokens and no tokenizer call is needed on the hot path.
 *
 * The default vocabulary is o200k's, checked against it once, on first use. A profile's own tokenizer
 * (target.tokenizer) gets its own vocabulary, selected from the same candidate words: the pieces that are
 * exactly one of its tokens where they are used (a " word" after a word, a "." or "," between words, an
 * opener at the start of a text), checked by encoding them in context (about 1,000 short encodes, once
 * per tokenizer). The workload then checks whole texts (workload/synthetic-text.ts: a long run of pieces
 * once per tokenizer, a few of each workload's own texts), because a tokenizer whose merges cross a word
 * boundary would break the sum.
 */
import { InferbenchError } from '../errors.js';
import type { Rng } from './rng.js';
import { o200kTokenizer, tokenizer } from './tokenizer.js';
import type { EncodingTokenizer } from './tokenizer.js';

const CANDIDATE_WORDS = (
  'the model token stream latency server request answer system value data time first last queue ' +
  'prompt output input number result quick brown fox jumps over lazy dog river mountain city light ' +
  'water paper music garden window market story energy signal network memory cache engine planet ' +
  'forest ocean winter summer morning evening simple clear fast slow small large early late green ' +
  'blue red white black open close build test check measure report share learn write read follow ' +
  'and of to in for on with as by at from that this it is was are be has have will can may each ' +
  'more most other some such only also well very just then than when where which while because'
).split(' ');

export interface TokenVocabulary {
  /** Pieces that continue a text: " word" (one token each). */
  readonly words: readonly string[];
  /** Capitalised words without a leading space, to start a text or a sentence-initial piece. */
  readonly openers: readonly string[];
  /** Punctuation pieces (one token each). */
  readonly punctuation: readonly string[];
}

let vocabulary: TokenVocabulary | undefined;
const otherVocabularies = new WeakMap<EncodingTokenizer, TokenVocabulary>();

/** Fewest " word" pieces a named tokenizer must have for prompts that vary enough. */
const MIN_WORDS = 8;

function isSingleToken(piece: string): boolean {
  return tokenizer().encode(piece).length === 1;
}

/**
 * The checked vocabulary of `named` (built once per tokenizer); without one, or for o200kTokenizer(), the
 * o200k vocabulary every default prompt and the emulator's text are made of.
 */
export function tokenVocabulary(named?: EncodingTokenizer): TokenVocabulary {
  if (named !== undefined && named !== o200kTokenizer()) {
    let own = otherVocabularies.get(named);
    if (!own) {
      own = selectVocabulary(named);
      otherVocabularies.set(named, own);
    }
    return own;
  }
  if (vocabulary) return vocabulary;
  const words = CANDIDATE_WORDS.map((w) => ` ${w}`).filter(isSingleToken);
  const openers = CANDIDATE_WORDS.map((w) => w[0]!.toUpperCase() + w.slice(1)).filter(isSingleToken);
  const punctuation = ['.', ','].filter(isSingleToken);
  vocabulary = { words, openers, punctuation };
  return vocabulary;
}

/** Texts a continuation piece is tried after: they end in a word, as every piece's left neighbour does. */
const CONTEXTS = ['Data', 'The model'];

/**
 * The candidate pieces that are one token of `named` where the generator puts them. A piece counts when
 * appending it to each context adds exactly one token, and that token decodes back to the piece (modulo
 * spaces and case: a Metaspace or WordPiece decoder drops the space, a lowercasing normalizer the case),
 * which rules out unknown-word tokens that carry no text.
 */
function selectVocabulary(named: EncodingTokenizer): TokenVocabulary {
  const counts = new Map<string, number>();
  const count = (text: string): number => {
    let n = counts.get(text);
    if (n === undefined) {
      n = named.count(text);
      counts.set(text, n);
    }
    return n;
  };
  const addsOneToken = (before: string, piece: string, after = ''): boolean => {
    if (count(before + piece + after) !== count(before + after) + 1) return false;
    const ids = named.encode(before + piece);
    const last = ids[ids.length - 1];
    return Number.isInteger(last) && sameText(decodeOne(named, last!), piece);
  };
  const words = CANDIDATE_WORDS.map((w) => ` ${w}`).filter((piece) =>
    CONTEXTS.every((before) => addsOneToken(before, piece)),
  );
  if (words.length < MIN_WORDS) {
    throw new InferbenchError(
      'BAD_PROFILE',
      `target.tokenizer ${named.name}: only ${words.length} of ${CANDIDATE_WORDS.length} common English words are one token of it, too few for synthetic prompts`,
      {
        hint: `synthetic prompts need at least ${MIN_WORDS}; use prompt.dataset with this tokenizer, or leave target.tokenizer out (o200k_base)`,
      },
    );
  }
  const next = words[0]!;
  // An opener starts a text: one token alone, and followed by a word it still adds just that word's token.
  let openers = CANDIDATE_WORDS.map((w) => w[0]!.toUpperCase() + w.slice(1)).filter(
    (piece) => addsOneToken('', piece) && count(piece + next) === 2,
  );
  // A tokenizer without capitalised words (or one that lowercases) may still start a text with " word".
  if (openers.length === 0) openers = words.filter((piece) => addsOneToken('', piece) && count(piece + next) === 2);
  const punctuation = ['.', ','].filter((piece) => CONTEXTS.every((before) => addsOneToken(before, piece, next)));
  if (openers.length === 0) {
    throw new InferbenchError(
      'BAD_PROFILE',
      `target.tokenizer ${named.name}: no candidate word is one token at the start of a text`,
      {
        hint: 'use prompt.dataset with this tokenizer, or leave target.tokenizer out (o200k_base)',
      },
    );
  }
  return { words, openers, punctuation };
}

function decodeOne(named: EncodingTokenizer, id: number): string {
  try {
    return named.decode([id]);
  } catch {
    return '';
  }
}

function sameText(decoded: string, piece: string): boolean {
  return decoded.trim().toLowerCase() === piece.trim().toLowerCase();
}

/**
 * Appends `count` pieces to `out` and returns it. With `start` true the first piece is an opener (no
 * leading space). Sentences end with "." every 8-16 words; a "," now and then.
 */
export function generateTokenPieces(
  rng: Rng,
  count: number,
  start = true,
  out: string[] = [],
  vocab = tokenVocabulary(),
): string[] {
  const { words, openers } = vocab;
  // o200k has both (its text is unchanged); a named tokenizer's vocabulary without one never emits it.
  const period = vocab.punctuation.includes('.');
  const comma = vocab.punctuation.includes(',');
  let sinceStop = 0;
  let sentenceLength = 8 + rng.int(0, 8);
  // Two punctuation pieces in a row would merge into one token (",." or ".."), so never emit them.
  let lastWasWord = false;
  for (let i = 0; i < count; i++) {
    if (i === 0 && start) {
      out.push(openers[rng.int(0, openers.length - 1)]!);
      sinceStop = 1;
      lastWasWord = true;
      continue;
    }
    if (period && lastWasWord && sinceStop >= sentenceLength && i < count - 1) {
      out.push('.');
      lastWasWord = false;
      sinceStop = 0;
      sentenceLength = 8 + rng.int(0, 8);
      continue;
    }
    if (comma && lastWasWord && sinceStop > 3 && rng.next() < 0.05) {
      out.push(',');
      lastWasWord = false;
      sinceStop++;
      continue;
    }
    out.push(words[rng.int(0, words.length - 1)]!);
    lastWasWord = true;
    sinceStop++;
  }
  return out;
}

/** A string of exactly `count` tokens (of the vocabulary's tokenizer; o200k by default). */
export function generateTokenText(rng: Rng, count: number, start = true, vocab = tokenVocabulary()): string {
  return generateTokenPieces(rng, count, start, [], vocab).join('');
}
