/**
 * A Hugging Face `tokenizer.json` as the harness's Tokenizer (profile `target.tokenizer`), through
 * @huggingface/tokenizers (pure JavaScript, no native code). Counts are of the text alone: no special
 * tokens added (no BOS), as a server's usage counts generated text. Loaded once per run, before the
 * clock starts; a file that cannot be read or is not a tokenizer is a BAD_PROFILE error naming it.
 */
import { readFile } from 'node:fs/promises';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { InferbenchError } from '../errors.js';
import type { Tokenizer } from './tokenizer.js';

/** A Tokenizer that also encodes and decodes (for token-exact prompts). */
export interface LoadedTokenizer extends Tokenizer {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

/** Builds a tokenizer from the parsed JSON of a tokenizer.json (and, optionally, a tokenizer_config.json). */
export function hfTokenizerFromJson(name: string, tokenizerJson: unknown, config: unknown = {}): LoadedTokenizer {
  const hf = new HfTokenizer(tokenizerJson as object, config as object);
  const encode = (text: string): number[] =>
    text.length === 0 ? [] : hf.encode(text, { add_special_tokens: false }).ids;
  // A model that cannot encode a plain word is not a tokenizer (this also catches most malformed files).
  encode('inferbench check');
  return {
    name,
    count: (text) => encode(text).length,
    encode,
    decode: (ids) => hf.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
  };
}

/** Reads and builds the tokenizer at `path` (absolute). */
export async function loadHfTokenizer(path: string): Promise<LoadedTokenizer> {
  const hint =
    "target.tokenizer names a Hugging Face tokenizer.json (the file next to a model's weights), relative to the profile";
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InferbenchError('BAD_PROFILE', `target.tokenizer: cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
      hint,
    });
  }
  try {
    return hfTokenizerFromJson(path, JSON.parse(text));
  } catch (error) {
    throw new InferbenchError(
      'BAD_PROFILE',
      `target.tokenizer: ${path} is not a valid tokenizer.json: ${(error as Error).message}`,
      { cause: error, hint },
    );
  }
}
