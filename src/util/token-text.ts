/**
 * Text with an exact, known number of tokens, from a seeded Rng: the emulator's generated output and the
 * harness's synthetic prompts. Each piece is one o200k pretoken and one token (" word", ".", ","), so a
 * concatenation of N pieces encodes to exactly N tokens and no tokenizer call is needed on the hot path.
 * The vocabulary is checked against the real tokenizer once, on first use.
 */
import type { Rng } from './rng.js';
import { tokenizer } from './tokenizer.js';

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

function isSingleToken(piece: string): boolean {
  return tokenizer().encode(piece).length === 1;
}

/** The checked vocabulary (built once). */
export function tokenVocabulary(): TokenVocabulary {
  if (vocabulary) return vocabulary;
  const words = CANDIDATE_WORDS.map((w) => ` ${w}`).filter(isSingleToken);
  const openers = CANDIDATE_WORDS.map((w) => w[0]!.toUpperCase() + w.slice(1)).filter(isSingleToken);
  const punctuation = ['.', ','].filter(isSingleToken);
  vocabulary = { words, openers, punctuation };
  return vocabulary;
}

/**
 * Appends `count` pieces to `out` and returns it. With `start` true the first piece is an opener (no
 * leading space). Sentences end with "." every 8-16 words; a "," now and then.
 */
export function generateTokenPieces(rng: Rng, count: number, start = true, out: string[] = []): string[] {
  const { words, openers } = tokenVocabulary();
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
    if (lastWasWord && sinceStop >= sentenceLength && i < count - 1) {
      out.push('.');
      lastWasWord = false;
      sinceStop = 0;
      sentenceLength = 8 + rng.int(0, 8);
      continue;
    }
    if (lastWasWord && sinceStop > 3 && rng.next() < 0.05) {
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

/** A string of exactly `count` tokens. */
export function generateTokenText(rng: Rng, count: number, start = true): string {
  return generateTokenPieces(rng, count, start).join('');
}
