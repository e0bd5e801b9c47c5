/**
 * The bounded counter (util/bounded-tokens.ts): linear on degenerate text (a long run of one character
 * froze the harness for minutes), exact on ordinary text, resumable in slices.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_PIECE_CHARS,
  MAX_RUN_CHARS,
  TokenCountJob,
  countTokensBounded,
  nextPieceEnd,
} from '../../../src/util/bounded-tokens.js';
import { createRng } from '../../../src/util/rng.js';
import { generateTokenText } from '../../../src/util/token-text.js';
import { countTokens, o200kTokenizer } from '../../../src/util/tokenizer.js';

const o200k = o200kTokenizer();

/** Ordinary text: words, punctuation, numbers, newlines, double spaces, tabs, code, other scripts. */
function ordinaryText(seed: number, words: number): string {
  const rng = createRng(seed);
  const vocabulary = [
    'the',
    'Model',
    'streams',
    'tokens,',
    'latency.',
    '12345',
    '3.14',
    "don't",
    'naïve',
    '東京',
    'emoji 🎉',
    'x=1;',
    'if (a) {',
    '}',
    '\n',
    '\n\n',
    '  ',
    '\t',
    'https://example.com/a/b',
    '"quoted"',
    'Ünïcödé',
    '—',
  ];
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(vocabulary[rng.int(0, vocabulary.length - 1)]!);
  return out.join(' ');
}

describe('bounded token counting', () => {
  it('counts ordinary text exactly as the tokenizer does (no long runs)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const text = ordinaryText(seed, 2000);
      expect(countTokensBounded(o200k, text), `seed ${seed}`).toBe(countTokens(text));
    }
    for (const count of [1, 100, 5000]) {
      const text = generateTokenText(createRng(count), count);
      expect(countTokensBounded(o200k, text)).toBe(count);
    }
    expect(countTokensBounded(o200k, '')).toBe(0);
    expect(countTokensBounded(o200k, 'short')).toBe(countTokens('short'));
  });

  it('counts a 1 MiB run of one character in well under a second (it took minutes)', () => {
    const text = 'x'.repeat(1 << 20);
    const started = performance.now();
    const tokens = countTokensBounded(o200k, text);
    const elapsedMs = performance.now() - started;
    // A generous bound for loaded CI machines; bench figures are in the report of the change.
    expect(elapsedMs).toBeLessThan(5000);
    // One token per cut at most differs: the exact count is about 1/8 token per x.
    const pieces = Math.ceil(text.length / MAX_RUN_CHARS);
    expect(Math.abs(tokens - text.length / 8)).toBeLessThanOrEqual(pieces);
  });

  it('is linear on a long run of varied characters without spaces', () => {
    const rng = createRng(9);
    const make = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + rng.int(0, 25))).join('');
    const started = performance.now();
    const tokens = countTokensBounded(o200k, make(64 * 1024));
    expect(performance.now() - started).toBeLessThan(5000);
    expect(tokens).toBeGreaterThan(10_000);
  });

  it('never hands the tokenizer a piece longer than MAX_PIECE_CHARS or a run longer than MAX_RUN_CHARS', () => {
    const text = `${ordinaryText(3, 500)} ${'y'.repeat(1000)}\n\n\n${' '.repeat(300)}${'\n'.repeat(300)} end ${'😀'.repeat(100)}`;
    let at = 0;
    let pieces = 0;
    while (at < text.length) {
      const { end, fixed } = nextPieceEnd(text, at);
      expect(end).toBeGreaterThan(at);
      expect(end - at).toBeLessThanOrEqual(fixed ? MAX_RUN_CHARS : MAX_PIECE_CHARS);
      // Never inside a surrogate pair.
      const code = text.charCodeAt(end);
      expect(code >= 0xdc00 && code <= 0xdfff).toBe(false);
      at = end;
      pieces++;
    }
    expect(pieces).toBeGreaterThan(10);
  });

  it('resumes across slices and gives the same count as one call', () => {
    const text = `${ordinaryText(5, 3000)}${'z'.repeat(5000)}`;
    const job = new TokenCountJob(o200k, text);
    let steps = 0;
    while (!job.step(0)) steps++;
    expect(steps).toBeGreaterThan(10);
    expect(job.tokens).toBe(countTokensBounded(o200k, text));
  });

  it('extrapolates the rest when stopped early', () => {
    const text = ordinaryText(6, 4000);
    const job = new TokenCountJob(o200k, text);
    job.step(0);
    const estimate = job.extrapolate();
    expect(job.done).toBe(true);
    const exact = countTokens(text);
    expect(estimate).toBeGreaterThan(exact * 0.5);
    expect(estimate).toBeLessThan(exact * 2);
  });
});
