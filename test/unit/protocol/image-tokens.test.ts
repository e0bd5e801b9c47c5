import { describe, expect, it } from 'vitest';
import { IMAGE_BASE_TOKENS, IMAGE_TILE_TOKENS, imageTokens } from '../../../src/protocol/image-tokens.js';

describe('imageTokens: OpenAI tile rule', () => {
  it('matches the published examples: 1024x1024 high = 765, 2048x4096 high = 1105, low = 85', () => {
    expect(imageTokens(1024, 1024, 'high')).toBe(765);
    expect(imageTokens(2048, 4096, 'high')).toBe(1105);
    expect(imageTokens(4096, 8192, 'low')).toBe(85);
    expect(IMAGE_BASE_TOKENS).toBe(85);
    expect(IMAGE_TILE_TOKENS).toBe(170);
  });

  it('counts auto and an absent detail as high', () => {
    for (const [w, h] of [
      [1024, 768],
      [300, 200],
      [4000, 3000],
    ] as const) {
      expect(imageTokens(w, h, 'auto')).toBe(imageTokens(w, h, 'high'));
      expect(imageTokens(w, h)).toBe(imageTokens(w, h, 'high'));
    }
  });

  it('never scales up: small images are one tile, 512 boundaries decide the count', () => {
    expect(imageTokens(100, 100)).toBe(85 + 170);
    expect(imageTokens(512, 512)).toBe(85 + 170);
    expect(imageTokens(513, 512)).toBe(85 + 2 * 170);
    // 768 short side kept, 1024 long: 2 x 2 tiles.
    expect(imageTokens(1024, 768)).toBe(85 + 4 * 170);
    // Shortest side 1080 -> 768, long 1920 -> 1365: 3 x 2 tiles.
    expect(imageTokens(1920, 1080)).toBe(85 + 6 * 170);
    // Fit in 2048 first: 3000x1000 -> 2048x682, short side below 768 stays: 4 x 2 tiles.
    expect(imageTokens(3000, 1000)).toBe(85 + 8 * 170);
    // Symmetric in width and height.
    expect(imageTokens(1000, 3000)).toBe(imageTokens(3000, 1000));
  });

  it('handles extreme aspect ratios without a zero side', () => {
    // 1 x 10000 -> 1 x 2048 (short side at least 1 px): 4 x 1 tiles.
    expect(imageTokens(1, 10_000)).toBe(85 + 4 * 170);
  });
});
