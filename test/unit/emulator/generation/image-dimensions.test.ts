/**
 * What reading an image's size costs: base64 decoded per data URL, counted through Buffer.from. Data that
 * is not an image is refused from its first kilobyte, whatever its length; a JPEG's size is found behind
 * metadata of any length by decoding only the segment headers; and a valid image is decoded once per
 * request although validation, the token count and the prompt cache all read it.
 */
import { encode as encodeJpeg } from 'jpeg-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readImageDimensions } from '../../../../src/emulator/generation/image-dimensions.js';
import { countPromptTokens } from '../../../../src/emulator/generation/prompt-tokens.js';
import { PrefixPromptCache } from '../../../../src/emulator/prompt-cache/prefix-prompt-cache.js';
import { encodeSyntheticImage } from '../../../../src/workload/synthetic-image.js';
import { validate } from '../validation/expect-bad-request.js';
import { visionModel } from './model-fixtures.js';

const dataUrl = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`;

/** Runs `read` and returns the base64 characters it decoded, and its result. */
function decodedChars<T>(read: () => T): { chars: number; calls: number; result: T } {
  let chars = 0;
  let calls = 0;
  const from = Buffer.from.bind(Buffer) as (...args: unknown[]) => Buffer;
  const spy = vi.spyOn(Buffer, 'from').mockImplementation(((...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[1] === 'base64') {
      chars += args[0].length;
      calls++;
    }
    return from(...args);
  }) as typeof Buffer.from);
  try {
    const result = read();
    return { chars, calls, result };
  } finally {
    spy.mockRestore();
  }
}

/** JPEG bytes of a 40x30 image whose size (SOF) comes after `comments` x 60,000 bytes of comment segments. */
function jpegBehindComments(comments: number): Buffer {
  const data = Buffer.alloc(40 * 30 * 4, 120);
  return encodeJpeg({ width: 40, height: 30, data, comments: Array(comments).fill('c'.repeat(60_000)) }, 80).data;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('readImageDimensions: decoding cost', () => {
  it('refuses data that is not an image from its first kilobyte, whatever its length', () => {
    for (const bytes of [1_000, 7_000_000]) {
      const url = dataUrl(Buffer.alloc(bytes, 7));
      const read = decodedChars(() => readImageDimensions(url));
      expect(read.result).toBe(null);
      // 1,368 characters; it used to decode 1 KB, 48 KB, 768 KB, then all 9.3 MB, copied twice.
      expect(read.chars).toBeLessThanOrEqual(1368);
    }
  });

  it('gives up on data that starts like a JPEG but has no size after a bounded walk', () => {
    const zeros = Buffer.alloc(7_000_000, 0);
    zeros[0] = 0xff;
    zeros[1] = 0xd8;
    const noise = Buffer.alloc(7_000_000);
    for (let i = 0; i < noise.length; i++) noise[i] = Math.imul(i, 2654435761) >>> 24;
    noise[0] = 0xff;
    noise[1] = 0xd8;
    for (const bytes of [zeros, noise]) {
      const read = decodedChars(() => readImageDimensions(dataUrl(bytes, 'image/jpeg')));
      expect(read.result).toBe(null);
      // The head, then at most two windows of 64 characters per step, 1,024 steps: 1.4% of the 9.3 MB.
      expect(read.chars).toBeLessThanOrEqual(1368 + 2 * 1024 * 64);
    }
  });

  it("finds a JPEG's size behind 1.2 MB of metadata, decoding only the segment headers", () => {
    const bytes = jpegBehindComments(20);
    expect(bytes.indexOf(Buffer.from([0xff, 0xc0]))).toBeGreaterThan(1_200_000);
    const read = decodedChars(() => readImageDimensions(dataUrl(bytes, 'image/jpeg')));
    expect(read.result).toEqual({ width: 40, height: 30, type: 'jpg' });
    // Two windows of 64 characters per segment; it used to decode 1 KB, 48 KB, 768 KB, then all 1.6 MB.
    expect(read.chars).toBeLessThan(10_000);
  });

  it('reads a JPEG of every real encoder layout, large or small', () => {
    expect(readImageDimensions(dataUrl(jpegBehindComments(0), 'image/jpeg'))).toEqual({
      width: 40,
      height: 30,
      type: 'jpg',
    });
    const photo = encodeSyntheticImage(1280, 720, 'jpeg', 3);
    expect(readImageDimensions(dataUrl(photo, 'image/jpeg'))).toEqual({ width: 1280, height: 720, type: 'jpg' });
    // Cut right after its size: still read; cut before it: not an image.
    const sof = photo.indexOf(Buffer.from([0xff, 0xc0]));
    expect(readImageDimensions(dataUrl(photo.subarray(0, sof + 9)))).toEqual({ width: 1280, height: 720, type: 'jpg' });
    expect(readImageDimensions(dataUrl(photo.subarray(0, sof + 7)))).toBe(null);
  });
});

describe('image size: read once per request', () => {
  it('validation, the token count and the prompt cache decode a valid image once', () => {
    const url = dataUrl(encodeSyntheticImage(512, 512, 'png', 4));
    const body = {
      model: 'test-vision',
      prompt_cache_key: 'k',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
    };
    const read = decodedChars(() => {
      const request = validate(body, { model: visionModel });
      const { promptTokens, imageTokens } = countPromptTokens(request);
      new PrefixPromptCache().cachedTokens(request, promptTokens, 'test-vision');
      return imageTokens;
    });
    expect(read.result).toBe(255);
    expect(read.calls).toBe(1);
  });

  it('reads a part again when its url is replaced', () => {
    const imageUrl = { url: dataUrl(encodeSyntheticImage(64, 64, 'png', 1)) };
    const request = {
      model: 'm',
      messages: [{ role: 'user' as const, content: [{ type: 'image_url' as const, image_url: imageUrl }] }],
    };
    expect(validate({ ...request, model: 'test-vision' }, { model: visionModel }).messages).toHaveLength(1);
    imageUrl.url = dataUrl(encodeSyntheticImage(1024, 1024, 'png', 1));
    // A new request object (counts are kept per request), the same part object with another url.
    expect(countPromptTokens({ ...request }).imageTokens).toBe(85 + 4 * 170);
  });
});
