/**
 * The cached pretoken counter must equal js-tiktoken's encode().length for every text: words, numbers,
 * whitespace runs (whose pretokens depend on what follows), contractions, special-token text, emoji.
 */
import { describe, expect, it } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { countTokens } from '../../../src/util/tokenizer.js';

const reference = new Tiktoken(o200kBase);
const encodeCount = (text: string): number => (text.length === 0 ? 0 : reference.encode(text, [], []).length);

const PIECES = [
  'a',
  'Z',
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\t',
  '1',
  '23',
  '4567',
  '.',
  ',',
  "'s",
  "'LL",
  'é',
  '中文',
  '😀',
  '<|endoftext|>',
  '-',
  '$',
  '\u00a0',
  '\u2003',
  'x'.repeat(70),
  ' tok',
  'Hello',
  ' world',
  '\n\n',
  ' \n ',
  '  x',
];

describe('countTokens (cached by pretoken)', () => {
  it('equals encode().length on thousands of generated texts, counted twice (cache cold and warm)', () => {
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const texts: string[] = [];
    for (let i = 0; i < 1500; i += 1) {
      let text = '';
      const parts = 1 + Math.floor(next() * 25);
      for (let j = 0; j < parts; j += 1) text += PIECES[Math.floor(next() * PIECES.length)];
      texts.push(text);
    }
    // js-tiktoken's count of each text, once (its merge is the slow part); then countTokens twice against it.
    const expected = texts.map(encodeCount);
    for (const round of [1, 2]) {
      const wrong = texts.filter((text, i) => countTokens(text) !== expected[i]);
      expect({ round, wrong }).toEqual({ round, wrong: [] });
    }
  });

  it('counts known texts exactly', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens(' tok tok tok tok')).toBe(encodeCount(' tok tok tok tok'));
    expect(countTokens('hello world')).toBe(2);
  });
});
