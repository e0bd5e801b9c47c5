/**
 * The emulator bills an image by the size its data says (read from the header, never the media type),
 * with OpenAI's tile rule: prompt_tokens and usage.image_tokens for real PNG and JPEG data of several sizes
 * and details, and readImageDimensions on good, bad and JPEG-with-a-long-header data.
 */
import { encode as encodeJpeg } from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { readImageDimensions } from '../../../../src/emulator/generation/image-dimensions.js';
import { countPromptTokens } from '../../../../src/emulator/generation/prompt-tokens.js';
import type { ChatCompletionRequest, ImagePart } from '../../../../src/protocol/chat.js';
import type { ImageDetail } from '../../../../src/protocol/image-tokens.js';
import { countTokens } from '../../../../src/util/tokenizer.js';
import { encodeSyntheticImage } from '../../../../src/workload/synthetic-image.js';

const dataUrl = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`;
const png = (w: number, h: number) => dataUrl(encodeSyntheticImage(w, h, 'png', 7));
const jpeg = (w: number, h: number) => dataUrl(encodeSyntheticImage(w, h, 'jpeg', 7), 'image/jpeg');

function imagePart(url: string, detail?: ImageDetail): ImagePart {
  return { type: 'image_url', image_url: detail === undefined ? { url } : { url, detail } };
}

/** Tiles of the rule worked by hand for each case (not by calling imageTokens). */
const CASES: { url: () => string; detail?: ImageDetail; tokens: number; what: string }[] = [
  { what: 'png 300x200 auto: 1 tile', url: () => png(300, 200), tokens: 85 + 170 },
  { what: 'png 1024x768 high: 2x2 tiles', url: () => png(1024, 768), detail: 'high', tokens: 85 + 4 * 170 },
  { what: 'jpeg 1024x768 low: flat', url: () => jpeg(1024, 768), detail: 'low', tokens: 85 },
  {
    what: 'jpeg 1920x1080 auto: 1365x768, 3x2 tiles',
    url: () => jpeg(1920, 1080),
    detail: 'auto',
    tokens: 85 + 6 * 170,
  },
  { what: 'png 2600x600: 2048x472, 4x1 tiles', url: () => png(2600, 600), tokens: 85 + 4 * 170 },
];

describe('emulator image tokens', () => {
  it('bill each image by its real size and detail; usage.image_tokens is their sum', () => {
    const text = 3 + 3 + countTokens('user') + countTokens('Describe');
    for (const c of CASES) {
      const request: ChatCompletionRequest = {
        model: 'm',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Describe' }, imagePart(c.url(), c.detail)] }],
      };
      expect(countPromptTokens(request), c.what).toEqual({ promptTokens: text + c.tokens, imageTokens: c.tokens });
    }
    const two: ChatCompletionRequest = {
      model: 'm',
      messages: [{ role: 'user', content: [imagePart(png(300, 200)), imagePart(png(1024, 768), 'low')] }],
    };
    expect(countPromptTokens(two).imageTokens).toBe(255 + 85);
  });

  it('reads the size from the data, whatever the media type says', () => {
    const bytes = encodeSyntheticImage(640, 480, 'png', 3);
    expect(readImageDimensions(dataUrl(bytes, 'image/jpeg'))).toEqual({ width: 640, height: 480, type: 'png' });
    expect(readImageDimensions(jpeg(33, 17))).toEqual({ width: 33, height: 17, type: 'jpg' });
  });

  it('finds a JPEG size behind a header longer than the first decoded kilobyte', () => {
    const data = Buffer.alloc(40 * 30 * 4, 200);
    const comment = 'x'.repeat(30_000);
    const bytes = encodeJpeg({ width: 40, height: 30, data, comments: [comment] }, 80).data;
    expect(bytes.indexOf(Buffer.from([0xff, 0xc0]))).toBeGreaterThan(30_000);
    expect(readImageDimensions(dataUrl(bytes, 'image/jpeg'))).toEqual({ width: 40, height: 30, type: 'jpg' });
  });

  it('is null for data that is not an image, a truncated header, or a format a vision model does not take', () => {
    expect(readImageDimensions(`data:image/png;base64,${Buffer.from('not an image at all').toString('base64')}`)).toBe(
      null,
    );
    expect(readImageDimensions('data:image/png;base64,iVBORw0KGgo=')).toBe(null);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>');
    expect(readImageDimensions(dataUrl(svg, 'image/svg+xml'))).toBe(null);
    expect(readImageDimensions('no comma here')).toBe(null);
  });
});
