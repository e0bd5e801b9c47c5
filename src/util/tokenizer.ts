/**
 * The real tokenizer (o200k_base through js-tiktoken) shared by the emulator (usage accounting) and the
 * harness (token-exact prompts, estimates when a server sends no usage). Loading the ranks takes about a
 * second, so it happens once, lazily, on first use.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

export const TOKENIZER_NAME = 'o200k_base';

let encoder: Tiktoken | undefined;

export function tokenizer(): Tiktoken {
  encoder ??= new Tiktoken(o200kBase);
  return encoder;
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : tokenizer().encode(text).length;
}

export function encodeTokens(text: string): number[] {
  return tokenizer().encode(text);
}

export function decodeTokens(ids: readonly number[]): string {
  return tokenizer().decode([...ids]);
}
