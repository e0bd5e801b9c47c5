/**
 * Synthetic images are real files: PNG and JPEG bytes that pngjs and jpeg-js decode back to the asked
 * size, the same bytes for the same seed, other bytes for another seed, sizes in the range photographs
 * have (neither a flat colour nor noise), and a data URL that carries exactly those bytes.
 */
import { decode as decodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { encodeSyntheticImage, syntheticImage } from '../../../src/workload/synthetic-image.js';
import { syntheticPixels } from '../../../src/workload/synthetic-image-pixels.js';

describe('synthetic images', () => {
  it('PNG decodes to the asked width and height, its pixels the seeded ones', () => {
    for (const [w, h] of [
      [1, 1],
      [320, 200],
      [97, 513],
    ] as const) {
      const decoded = PNG.sync.read(encodeSyntheticImage(w, h, 'png', 11));
      expect([decoded.width, decoded.height]).toEqual([w, h]);
      // Lossless: the decoded RGBA is the generated RGBA.
      expect(Buffer.compare(decoded.data, syntheticPixels(w, h, 11))).toBe(0);
    }
  });

  it('JPEG decodes to the asked width and height, close to the seeded pixels', () => {
    for (const [w, h] of [
      [1, 1],
      [320, 200],
      [97, 513],
    ] as const) {
      const decoded = decodeJpeg(encodeSyntheticImage(w, h, 'jpeg', 11), { useTArray: true });
      expect([decoded.width, decoded.height]).toEqual([w, h]);
      const pixels = syntheticPixels(w, h, 11);
      let error = 0;
      for (let i = 0; i < pixels.length; i++) error += Math.abs(pixels[i]! - decoded.data[i]!);
      expect(error / pixels.length).toBeLessThan(8);
    }
  });

  it('is deterministic: same seed, same bytes; another seed, other bytes', () => {
    for (const format of ['png', 'jpeg'] as const) {
      const a = encodeSyntheticImage(256, 128, format, 42);
      expect(Buffer.compare(a, encodeSyntheticImage(256, 128, format, 42))).toBe(0);
      expect(Buffer.compare(a, encodeSyntheticImage(256, 128, format, 43))).not.toBe(0);
    }
  });

  it('has the file sizes of a photograph at 1024x1024 (not flat colour, not noise)', () => {
    const megapixel = 1024 * 1024;
    const png = encodeSyntheticImage(1024, 1024, 'png', 5).length;
    const jpeg = encodeSyntheticImage(1024, 1024, 'jpeg', 5).length;
    // Raw RGB is 3 MB; photographs: PNG 1-2.5 MB, JPEG q85 100-400 KB.
    expect(png).toBeGreaterThan(0.25 * megapixel);
    expect(png).toBeLessThan(2.5 * megapixel);
    expect(jpeg).toBeGreaterThan(60_000);
    expect(jpeg).toBeLessThan(450_000);
  });

  it('makes a data URL of the file once, shared by every caller while one holds it', () => {
    const image = syntheticImage(64, 32, 'jpeg', 9);
    expect(image.url.startsWith('data:image/jpeg;base64,')).toBe(true);
    const bytes = Buffer.from(image.url.slice('data:image/jpeg;base64,'.length), 'base64');
    expect(Buffer.compare(bytes, encodeSyntheticImage(64, 32, 'jpeg', 9))).toBe(0);
    expect(image.bytes).toBe(bytes.length);
    expect(syntheticImage(64, 32, 'jpeg', 9)).toBe(image);
    expect(syntheticImage(64, 32, 'png', 9)).not.toBe(image);
  });
});
