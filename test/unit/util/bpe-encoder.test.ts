/**
 * util/bpe-encoder.ts must give exactly js-tiktoken's ids and text for o200k_base (it replaces js-tiktoken's
 * Tiktoken only to build faster): on words, numbers, whitespace runs, contractions, CJK, emoji, lone
 * surrogates, long runs that need many merges, random Unicode text (fast-check, fixed seed), decoding of
 * single ids that split a character (U+FFFD), and the special-token refusal of encode(text).
 */
import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { BpeEncoder } from '../../../src/util/bpe-encoder.js';

const reference = new Tiktoken(o200kBase);
const encoder = new BpeEncoder(o200kBase);

const TEXTS = [
  '',
  'a',
  'Hello, world!',
  "It's what they'LL say: don't.",
  '  leading and trailing  ',
  'tabs\tand\r\nnewlines\n\n\n',
  '1234567890 3.14159 -42',
  '中文的文本，还有标点。',
  'emoji 😀👍🏽 and 👨‍👩‍👧 families',
  'x'.repeat(300),
  ' '.repeat(40),
  'antidisestablishmentarianism supercalifragilisticexpialidocious',
  'lone \ud800 surrogate \udc00 here',
  'café naïve résumé Ærø',
  'https://example.com/path?query=1&b=two#frag',
  '{"json": [1, 2, {"k": null}]}',
];

describe('BpeEncoder equals js-tiktoken on o200k_base', () => {
  it.each(TEXTS.map((text) => [text]))('encodes %j to the same ids', (text) => {
    expect(encoder.encode(text, true)).toEqual(reference.encode(text, [], []));
    expect(encoder.encode(text)).toEqual(reference.encode(text));
  });

  it('encodes random Unicode text to the same ids and decodes them back to the same text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ maxLength: 30 }), (a, b) => {
        const text = `${a} ${b}`;
        const ids = encoder.encode(text, true);
        expect(ids).toEqual(reference.encode(text, [], []));
        expect(encoder.decode(ids)).toBe(reference.decode(ids));
      }),
      { seed: 20261128, numRuns: 300 },
    );
  });

  it('decodes each id alone as js-tiktoken does, a split character as U+FFFD', () => {
    const ids = reference.encode('中文 😀 ☃ ok', [], []);
    for (const id of ids) expect(encoder.decode([id])).toBe(reference.decode([id]));
    expect(ids.map((id) => encoder.decode([id])).join('')).toContain('\uFFFD');
    expect(encoder.decode([199_999, 200_018, 999_999_999])).toBe(reference.decode([199_999, 200_018, 999_999_999]));
  });

  it("refuses special-token text in encode(text) with js-tiktoken's message, and counts it as text when asked", () => {
    expect(() => reference.encode('a <|endoftext|> b')).toThrow('special token');
    expect(() => encoder.encode('a <|endoftext|> b')).toThrow(
      'The text contains a special token that is not allowed: <|endoftext|>',
    );
    expect(encoder.encode('a <|endofprompt|>', true)).toEqual(reference.encode('a <|endofprompt|>', [], []));
  });
});
