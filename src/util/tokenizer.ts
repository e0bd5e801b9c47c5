/**
 * The real tokenizer (o200k_base: js-tiktoken's ranks, encoded by util/bpe-encoder.ts with js-tiktoken's
 * exact ids) shared by the emulator (usage accounting) and the harness (token-exact prompts, estimates when
 * a server sends no usage). Building the encoder from the ranks takes a fifth of a second, so it happens
 * once, lazily, on first use.
 *
 * `Tokenizer` is what the harness's layers receive (the default is o200kTokenizer(); a profile can name
 * another one). Its count() is exact and unbounded: js-tiktoken's merge is quadratic in the length of one
 * pretoken (1,000 `x` take about 0.1 s), so text the harness did not write itself (a server's answer) is
 * counted through util/bounded-tokens.ts, never with count() directly.
 */
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { BpeEncoder } from './bpe-encoder.js';
import { pretokenCounter } from './pretoken-count.js';

export const TOKENIZER_NAME = 'o200k_base';

/** A tokenizer the harness counts with. */
export interface Tokenizer {
  /** What summary.json records: `o200k_base`, or the file a profile named. */
  readonly name: string;
  /** Token count of `text`, exact (special-token text counts as ordinary text). */
  count(text: string): number;
}

/**
 * A Tokenizer that also encodes and decodes: what token-exact prompts are built with (the workload
 * selects its one-token pieces by encoding them). o200kTokenizer() and a loaded tokenizer.json are both.
 */
export interface EncodingTokenizer extends Tokenizer {
  /** Token ids of `text` (no special tokens added; special-token text is ordinary text). */
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

let encoder: BpeEncoder | undefined;

/** The o200k_base encoder (js-tiktoken's ranks, util/bpe-encoder.ts), built on first use. */
export function tokenizer(): BpeEncoder {
  encoder ??= new BpeEncoder(o200kBase);
  return encoder;
}

/** encode(text).length with special-token text as ordinary text ("<|endoftext|>" in an answer: none allowed, none refused). */
function encodeCount(text: string): number {
  return text.length === 0 ? 0 : tokenizer().encode(text, true).length;
}

/** The same counts as encodeCount, pretoken by pretoken with a cache (util/pretoken-count.ts). */
const cachedCount = pretokenCounter(o200kBase.pat_str, encodeCount);

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : cachedCount(text);
}

export function encodeTokens(text: string): number[] {
  return tokenizer().encode(text);
}

export function decodeTokens(ids: readonly number[]): string {
  return tokenizer().decode([...ids]);
}

const o200k: EncodingTokenizer = {
  name: TOKENIZER_NAME,
  count: countTokens,
  encode: (text) => (text.length === 0 ? [] : tokenizer().encode(text, true)),
  decode: decodeTokens,
};

/** The default tokenizer (o200k_base), loaded on first count. */
export function o200kTokenizer(): EncodingTokenizer {
  return o200k;
}
