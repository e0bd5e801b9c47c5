/**
 * Image data the emulator refuses with 400 invalid_request_error naming the part's field: a well-formed
 * base64 data URL whose bytes are not a PNG, JPEG, WebP or GIF image, a truncated header, a `detail`
 * outside auto|low|high; and real images on a text model (the existing capability rule).
 */
import { describe, expect, it } from 'vitest';
import { encodeSyntheticImage } from '../../../../src/workload/synthetic-image.js';
import { textModel, visionModel } from '../generation/model-fixtures.js';
import { body, expectRejected, validate } from './expect-bad-request.js';

const PNG = `data:image/png;base64,${encodeSyntheticImage(64, 48, 'png', 1).toString('base64')}`;
const JPEG = `data:image/jpeg;base64,${encodeSyntheticImage(64, 48, 'jpeg', 1).toString('base64')}`;

const withImage = (imageUrl: Record<string, unknown>) =>
  body({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: imageUrl },
        ],
      },
    ],
  });

describe('validateChatRequest: image data', () => {
  it('accepts real PNG and JPEG data with every detail value, or none', () => {
    for (const url of [PNG, JPEG])
      for (const detail of [undefined, null, 'auto', 'low', 'high']) {
        const request = validate(withImage(detail === undefined ? { url } : { url, detail }), { model: visionModel });
        expect(request.messages).toHaveLength(1);
      }
  });

  it('refuses base64 that is not an image, names the url, never throws anything but the 400', () => {
    const notImages = [
      Buffer.from('hello, this is text pretending to be a picture').toString('base64'),
      PNG.slice('data:image/png;base64,'.length, 'data:image/png;base64,'.length + 12),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>').toString('base64'),
      'AAAA',
    ];
    for (const data of notImages) {
      expectRejected(
        withImage({ url: `data:image/png;base64,${data}` }),
        'messages[0].content[1].image_url.url',
        /does not hold a valid image/,
        { model: visionModel },
      );
    }
  });

  it('refuses a detail outside auto, low, high', () => {
    for (const detail of ['ultra', 3, 'HIGH'])
      expectRejected(withImage({ url: PNG, detail }), 'messages[0].content[1].image_url.detail', /must be one of/, {
        model: visionModel,
      });
  });

  it('still refuses real images on a model without vision', () => {
    expectRejected(withImage({ url: PNG }), 'messages[0].content[1]', /does not accept images/, { model: textModel });
  });
});
