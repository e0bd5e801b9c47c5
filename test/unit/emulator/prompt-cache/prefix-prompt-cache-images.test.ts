/**
 * The prompt cache with images: an image weighs its image tokens, not its base64 characters (a session's
 * turn 2 reports turn 1's prompt as cached, in whole blocks, never more); a data URL of megabytes is
 * compared by a constant-size digest (no per-character hashing of the data, no block hashes held for it);
 * and the LRU holds a bounded number of block hashes over all keys.
 */
import { describe, expect, it } from 'vitest';
import { countPromptTokens } from '../../../../src/emulator/generation/prompt-tokens.js';
import {
  CHAR_BLOCK,
  imageDigest,
  PrefixPromptCache,
} from '../../../../src/emulator/prompt-cache/prefix-prompt-cache.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart } from '../../../../src/protocol/chat.js';
import { encodeSyntheticImage } from '../../../../src/workload/synthetic-image.js';

const JPEG_720P = `data:image/jpeg;base64,${encodeSyntheticImage(1280, 720, 'jpeg', 5).toString('base64')}`;
/** A 9 MB data URL (the size of a 2048x2048 PNG's): its characters need not be an image for the cache. */
const NINE_MB = `data:image/png;base64,${'QUJD'.repeat(2_285_000)}`;

const imageTurn = (url: string, detail?: 'low' | 'high'): ChatMessage => ({
  role: 'user',
  content: [
    { type: 'text', text: 'What is in this photo?' },
    { type: 'image_url', image_url: detail === undefined ? { url } : { url, detail } },
  ] as ContentPart[],
});

const request = (messages: ChatMessage[], key = 'session-1'): ChatCompletionRequest => ({
  model: 'vision',
  messages,
  prompt_cache_key: key,
});

/** Cached tokens of `r` as the emulator computes them: its real prompt token count. */
const cachedOf = (cache: PrefixPromptCache, r: ChatCompletionRequest) =>
  cache.cachedTokens(r, countPromptTokens(r).promptTokens, 'vision');

describe('prefix prompt cache: images', () => {
  const turn1 = request([imageTurn(JPEG_720P)]);
  const turn2 = request([
    imageTurn(JPEG_720P),
    { role: 'assistant', content: 'A street at dusk with lamps reflected in puddles. '.repeat(8) },
    { role: 'user', content: 'Which colours dominate, and where is the light coming from? '.repeat(6) },
  ]);

  it("a session's turn 2 caches turn 1's prompt rounded down to blocks, not the share of base64 characters", () => {
    const p1 = countPromptTokens(turn1).promptTokens;
    const p2 = countPromptTokens(turn2).promptTokens;
    // The image is most of turn 1's tokens; the base64 was 99% of turn 2's characters.
    expect(countPromptTokens(turn1).imageTokens).toBe(1105);
    expect(p2 - p1).toBeGreaterThan(128);
    const cache = new PrefixPromptCache();
    expect(cachedOf(cache, turn1)).toBe(0);
    expect(cachedOf(cache, turn2)).toBe(Math.floor(p1 / 128) * 128);
  });

  it('at token granularity: the image and its text are cached, nothing of the new turn', () => {
    const p1 = countPromptTokens(turn1).promptTokens;
    const cache = new PrefixPromptCache({ blockTokens: 1 });
    cachedOf(cache, turn1);
    const cached = cachedOf(cache, turn2);
    expect(cached).toBeLessThanOrEqual(p1);
    // Only turn 1's last partial block (under CHAR_BLOCK units, a few tokens) can be lost.
    expect(cached).toBeGreaterThanOrEqual(p1 - CHAR_BLOCK / 4);
  });

  it('another image, or the same one at another detail, shares nothing from the image on', () => {
    const other = `data:image/jpeg;base64,${encodeSyntheticImage(1280, 720, 'jpeg', 6).toString('base64')}`;
    const cache = new PrefixPromptCache({ blockTokens: 1 });
    cachedOf(cache, turn1);
    // Only the text before the image (under a few dozen tokens) can match.
    expect(cachedOf(cache, request([imageTurn(other)]))).toBeLessThan(20);
    cachedOf(cache, turn1);
    expect(cachedOf(cache, request([imageTurn(JPEG_720P, 'low')]))).toBeLessThan(20);
    cachedOf(cache, turn1);
    expect(cachedOf(cache, turn1)).toBe(countPromptTokens(turn1).promptTokens);
  });

  it('digests a long data URL from a sample: equal for equal URLs, different when the data differs', () => {
    expect(imageDigest(NINE_MB).length).toBeLessThan(40);
    expect(imageDigest(`${NINE_MB}`)).toBe(imageDigest(NINE_MB));
    const at = (i: number) => `${NINE_MB.slice(0, i)}ZZZZ${NINE_MB.slice(i + 4)}`;
    // A change near either end (where an encoded image's header and its last bytes are) is caught; so is
    // another length.
    expect(imageDigest(at(100))).not.toBe(imageDigest(NINE_MB));
    expect(imageDigest(at(NINE_MB.length - 100))).not.toBe(imageDigest(NINE_MB));
    expect(imageDigest(`${NINE_MB}QUJD`)).not.toBe(imageDigest(NINE_MB));
    expect(imageDigest(JPEG_720P)).not.toBe(imageDigest(NINE_MB));
    // Short URLs are their own digest: every character compared.
    expect(imageDigest('data:image/png;base64,QUJD')).toBe('data:image/png;base64,QUJD');
  });

  it('a 9 MB data URL costs no per-character work and no block hashes', () => {
    const cache = new PrefixPromptCache();
    const big = request([imageTurn(NINE_MB)], 'big');
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      cache.cachedTokens(big, 200, 'vision');
      times.push(performance.now() - start);
    }
    // About 0.2 ms; hashing every character took 45-60 ms on an idle core and 106-226 ms under load.
    expect(Math.min(...times)).toBeLessThan(30);
    // The base 85 tokens of an unreadable image at 4 units each, and the text: a handful of blocks
    // (every 64 characters held 4 bytes: 142,000 blocks, 0.56 MB, for this one entry).
    expect(cache.blocksHeld).toBeLessThan(20);
  });
});

describe('prefix prompt cache: memory', () => {
  const prompt = (key: string, chars: number): ChatCompletionRequest =>
    request([{ role: 'user', content: `${key} `.padEnd(chars, 'x') }], key);

  it('evicts the least recently used keys until the block hashes held are within maxBlocks', () => {
    const cache = new PrefixPromptCache({ maxBlocks: 1000 });
    // About 300 blocks each: three fit, the fourth pushes the first out.
    for (const key of ['a', 'b', 'c']) cache.cachedTokens(prompt(key, 300 * CHAR_BLOCK), 5000, 'm');
    expect(cache.size).toBe(3);
    cache.cachedTokens(prompt('a', 300 * CHAR_BLOCK), 5000, 'm');
    cache.cachedTokens(prompt('d', 300 * CHAR_BLOCK), 5000, 'm');
    expect(cache.blocksHeld).toBeLessThanOrEqual(1000);
    expect(cache.size).toBe(3);
    // b was the least recently used: gone; a was used again: kept.
    expect(cache.cachedTokens(prompt('b', 300 * CHAR_BLOCK), 5000, 'm')).toBe(0);
    expect(cache.cachedTokens(prompt('d', 300 * CHAR_BLOCK), 5000, 'm')).toBeGreaterThan(0);
  });

  it('keeps the newest prompt even when it alone is over the budget, and only it', () => {
    const cache = new PrefixPromptCache({ maxBlocks: 100 });
    cache.cachedTokens(prompt('small', 50 * CHAR_BLOCK), 1000, 'm');
    cache.cachedTokens(prompt('huge', 500 * CHAR_BLOCK), 9000, 'm');
    expect(cache.size).toBe(1);
    expect(cache.cachedTokens(prompt('huge', 500 * CHAR_BLOCK), 9000, 'm')).toBe(8960);
  });
});
