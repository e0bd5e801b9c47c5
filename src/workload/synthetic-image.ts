/**
 * One synthetic image, encoded for real (PNG by pngjs, JPEG by jpeg-js) and turned into the data URL a
 * request carries, once: a request reuses the string, never re-encodes. Encoding is the costly part of an
 * image workload (about 0.5 s for a 2048 x 2048 PNG or JPEG), so an image with the same seed, size and
 * format is made once per process while any workload still holds it (groups of one scenario share their
 * images), and dropped with the last workload that used it.
 *
 * The encoders are loaded on the first image (CommonJS modules, so synchronously): most runs send no image,
 * and every worker thread of `run --workers` imports this module (loading both is about 50 ms of CPU).
 */
import { createRequire } from 'node:module';
import type * as JpegJs from 'jpeg-js';
import type * as PngJs from 'pngjs';
import type { ImageFormat } from '../profile/resolved-profile.js';
import { syntheticPixels } from './synthetic-image-pixels.js';

/**
 * Version of the image content: part of the workload hash, so a change to the pixels or the encoders'
 * settings makes runs before and after it not comparable.
 */
export const SYNTHETIC_IMAGE_VERSION = 1;
/** JPEG quality (jpeg-js, 1..100): what cameras and web pipelines commonly use. */
export const JPEG_QUALITY = 85;
/**
 * RGB, zlib level 6 and the Sub row filter: the size a typical encoder writes, in a fraction of the time
 * of pngjs's default (level 9, every filter tried per row).
 */
const PNG_OPTIONS = { colorType: 2, inputHasAlpha: true, deflateLevel: 6, filterType: 1 } as const;

export const IMAGE_MEDIA_TYPES: Readonly<Record<ImageFormat, string>> = { png: 'image/png', jpeg: 'image/jpeg' };

export interface SyntheticImage {
  readonly width: number;
  readonly height: number;
  readonly format: ImageFormat;
  /** Size of the encoded file in bytes (before base64). */
  readonly bytes: number;
  /** `data:image/png;base64,...`, built once. */
  readonly url: string;
}

const require = createRequire(import.meta.url);

/** The encoded file of a `width` x `height` image of `seed`'s pixels. */
export function encodeSyntheticImage(width: number, height: number, format: ImageFormat, seed: number): Buffer {
  const data = syntheticPixels(width, height, seed);
  if (format === 'png') {
    const { PNG } = require('pngjs') as typeof PngJs;
    return PNG.sync.write({ width, height, data } as PngJs.PNG, PNG_OPTIONS);
  }
  const { encode } = require('jpeg-js') as typeof JpegJs;
  return encode({ width, height, data }, JPEG_QUALITY).data;
}

const made = new Map<string, WeakRef<SyntheticImage>>();
const forget = new FinalizationRegistry<string>((key) => {
  if (made.get(key)?.deref() === undefined) made.delete(key);
});

/** The image of (`seed`, size, format), made now or shared with a workload that already made it. */
export function syntheticImage(width: number, height: number, format: ImageFormat, seed: number): SyntheticImage {
  const key = `${seed >>> 0}:${width}x${height}:${format}`;
  const known = made.get(key)?.deref();
  if (known) return known;
  const file = encodeSyntheticImage(width, height, format, seed);
  const image: SyntheticImage = {
    width,
    height,
    format,
    bytes: file.length,
    url: `data:${IMAGE_MEDIA_TYPES[format]};base64,${file.toString('base64')}`,
  };
  made.set(key, new WeakRef(image));
  forget.register(image, key);
  return image;
}
