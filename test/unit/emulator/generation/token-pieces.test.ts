import { describe, expect, it } from 'vitest';
import { countTextTokens, textPieces } from '../../../../src/emulator/generation/token-pieces.js';
import { encodeTokens } from '../../../../src/util/tokenizer.js';

const SAMPLES = [
  'Hello, world! How are you today?',
  'The quick brown fox jumps over the lazy dog.\n\nNew paragraph   with  spaces\tand tabs.',
  '{"name":"Ada","age":36,"tags":["x","y"],"nested":{"ok":true,"v":null}}',
  "It's 3.14159 or 12345678 or 1,000,000 - we'll see; don't panic.",
  'Unicode: café, naïve, 東京タワー, Привет мир, emoji 🎉🚀 and ∑ math ≤ ≥.',
  'function f(x) {\n  return x * 2; // double\n}\n',
  '    leading spaces and trailing   ',
  '<think>\nreasoning\n</think>\n\nanswer',
];

describe('token pieces (pretoken-cached real tokenizer)', () => {
  it('counts exactly as the tokenizer encodes', () => {
    for (const text of SAMPLES) expect(countTextTokens(text), text).toBe(encodeTokens(text).length);
    expect(countTextTokens('')).toBe(0);
  });

  it('splits into one piece per token that join back to the text', () => {
    for (const text of SAMPLES) {
      const pieces = textPieces(text);
      expect(pieces.join(''), text).toBe(text);
      expect(pieces.length, text).toBe(encodeTokens(text).length);
    }
  });

  it('treats special-token text as ordinary text instead of throwing', () => {
    expect(countTextTokens('before <|endoftext|> after')).toBeGreaterThan(4);
    expect(textPieces('x<|endoftext|>y').join('')).toBe('x<|endoftext|>y');
  });

  it('gives the same count on a repeat (cache hits) as on first sight', () => {
    const text = SAMPLES.join(' ').repeat(3);
    const first = countTextTokens(text);
    expect(countTextTokens(text)).toBe(first);
    expect(first).toBe(encodeTokens(text).length);
  });

  it('stays exact for long pretokens and fast for pathological ones', () => {
    const long = `x${'abcdefghij'.repeat(20)}`;
    expect(countTextTokens(long)).toBe(encodeTokens(long).length);
    expect(textPieces(long).join('')).toBe(long);
    const started = performance.now();
    const pathological = 'a'.repeat(200_000);
    expect(textPieces(pathological).join('')).toBe(pathological);
    expect(countTextTokens(pathological)).toBe(50_000);
    // Generous: merging 200,000 letters with js-tiktoken would take minutes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
