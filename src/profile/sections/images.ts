/**
 * The profile's `prompt.images`, as written: a list of image kinds, each adding `count` synthetic images
 * of one size and format to every request's user message (workload/synthetic-image-parts.ts). Sizes are
 * capped where an encoded image stays within what servers take in one request body.
 */
import { z } from 'zod';
import { IMAGE_DETAILS } from '../../protocol/image-tokens.js';
import type { ImageDetail } from '../../protocol/image-tokens.js';

/** Largest width or height: 4096 px (a 4096 x 4096 PNG is about 25 MB, base64 a third more). */
export const MAX_IMAGE_SIDE_PX = 4096;

const side = (what: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(MAX_IMAGE_SIDE_PX)
    .meta({ description: `${what} in pixels (1..${MAX_IMAGE_SIDE_PX}).` });

const imageKind = z.strictObject({
  width: side('Width'),
  height: side('Height'),
  format: z.enum(['png', 'jpeg']).optional().meta({ description: 'png (default) or jpeg (quality 85).' }),
  detail: z
    .enum(IMAGE_DETAILS as unknown as [ImageDetail, ...ImageDetail[]])
    .optional()
    .meta({ description: 'Sent as image_url.detail (auto, low, high); omitted: not sent (servers take auto).' }),
  count: z
    .number()
    .int()
    .min(1)
    .max(50)
    .optional()
    .meta({ description: 'Images of this kind per request (default 1).' }),
  variants: z.number().int().min(1).max(64).optional().meta({
    description:
      'Distinct images of this kind made when the workload is built, one picked per request (default 4; 1 sends the same image every time).',
  }),
});

/** `prompt.images`: image kinds added to each request's user message, after its text. */
export const imagesSchema = z.array(imageKind).min(1).meta({
  id: 'images',
  description:
    'Synthetic images in every request: [{ width, height, format: png|jpeg, detail: auto|low|high, count: 1, variants: 4 }]. Needs a model that accepts images.',
});

export type ImagesInput = z.infer<typeof imagesSchema>;
