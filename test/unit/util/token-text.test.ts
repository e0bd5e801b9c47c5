import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/util/rng.js';
import { generateTokenPieces, generateTokenText, tokenVocabulary } from '../../../src/util/token-text.js';
import { countTokens } from '../../../src/util/tokenizer.js';

describe('token-exact text', () => {
  it('has a vocabulary of single-token pieces', () => {
    const vocab = tokenVocabulary();
    expect(vocab.words.length).toBeGreaterThan(100);
    expect(vocab.openers.length).toBeGreaterThan(50);
    expect(vocab.punctuation).toEqual(['.', ',']);
  });

  it('encodes to exactly the requested number of tokens for many seeds and lengths', () => {
    for (let seed = 1; seed <= 40; seed++) {
      for (const count of [1, 2, 7, 64, 513]) {
        const text = generateTokenText(createRng(seed * 7919 + count), count);
        expect(countTokens(text), `seed ${seed} count ${count}: ${text.slice(0, 80)}`).toBe(count);
      }
    }
  });

  it('keeps the count when a continuation is appended to a start', () => {
    const rng = createRng(3);
    const pieces = generateTokenPieces(rng, 100, true);
    generateTokenPieces(rng, 100, false, pieces);
    expect(countTokens(pieces.join(''))).toBe(200);
  });

  it('is deterministic for a seed and varies across seeds', () => {
    expect(generateTokenText(createRng(5), 50)).toBe(generateTokenText(createRng(5), 50));
    expect(generateTokenText(createRng(5), 50)).not.toBe(generateTokenText(createRng(6), 50));
  });
});
