/**
 * `prompt.images` as written -> ImageSpec[] with its defaults: png, detail not sent, one image per
 * request, four variants.
 */
import type { ImageDetail } from '../protocol/image-tokens.js';
import type { ImagesInput } from './sections/images.js';

export type ImageFormat = 'png' | 'jpeg';

/** One kind of image of `prompt.images`, resolved. */
export interface ImageSpec {
  readonly width: number;
  readonly height: number;
  readonly format: ImageFormat;
  /** Sent as image_url.detail; null: not sent (the server's default, auto). */
  readonly detail: ImageDetail | null;
  /** Images of this kind in each request. */
  readonly count: number;
  /** Distinct images of this kind made at workload build; each request picks among them (seeded). */
  readonly variants: number;
}

export const IMAGE_DEFAULTS = { format: 'png', count: 1, variants: 4 } as const;

/** `{ images }` when the prompt sets them, else nothing (so prompts without images resolve, and hash, as before). */
export function resolveImages(input: ImagesInput | undefined): { images?: readonly ImageSpec[] } {
  if (input === undefined) return {};
  return {
    images: input.map((kind) => ({
      width: kind.width,
      height: kind.height,
      format: kind.format ?? IMAGE_DEFAULTS.format,
      detail: kind.detail ?? null,
      count: kind.count ?? IMAGE_DEFAULTS.count,
      variants: kind.variants ?? IMAGE_DEFAULTS.variants,
    })),
  };
}

/** How `validate` shows the images: "images 2 x 700x500 png (detail high), 1 x 1920x1080 jpeg; 4 variants each". */
export function formatImages(images: readonly ImageSpec[]): string {
  const kinds = images.map((k) => {
    const detail = k.detail === null ? '' : ` (detail ${k.detail})`;
    return `${k.count} x ${k.width}x${k.height} ${k.format}${detail}, ${k.variants} variant${k.variants === 1 ? '' : 's'}`;
  });
  return `images ${kinds.join('; ')}`;
}
