/**
 * The profile's `prompt.images`: a list of image kinds, each adding `count` synthetic images of one size and
 * format to every request's user message (workload/synthetic-image-parts.ts). Its schema (sizes capped where
 * an encoded image stays within what servers take in one request body), the size rules a per-field schema
 * cannot express, its defaults and its `validate` text.
 */
import { z } from 'zod';
import { IMAGE_DETAILS } from '../../protocol/image-tokens.js';
import type { ImageDetail } from '../../protocol/image-tokens.js';
import type { IssuePath, ProfileIssue } from '../profile-issue.js';
import type { ImageSpec } from '../resolved-profile.js';

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

/*
 * The size rules: what one request body and the pool of built images weigh. Each kind's `count` images go in
 * every request, and `variants` images of each kind are made and held when the workload is built, so 50 x
 * 4096x4096 PNG would be a 1.6 GB body and 64 variants of it 2 GB of memory. Checked on an estimate before
 * anything is built (validate finds it); synthetic-image-parts.ts measures what was built against the same limits.
 */

/** Most image data (data URL characters) one request body may carry. */
export const MAX_BODY_IMAGE_BYTES = 256 * 1024 * 1024;
/** Above this a run warns: the embedded emulator's body limit (32 MiB), and the order of many servers'. */
export const LARGE_BODY_IMAGE_BYTES = 32 * 1024 * 1024;
/** Most image data a scenario's pools of variants may hold. */
export const MAX_POOL_IMAGE_BYTES = 1024 * 1024 * 1024;

/**
 * Encoded bytes per pixel of the synthetic images (seeded waves with light noise), a little above what
 * they measure: about 1.62 as PNG and 0.18 as JPEG at 512x512 to 1280x720 (docs/workloads.md#images-promptimages).
 */
const BYTES_PER_PIXEL = { png: 1.75, jpeg: 0.2 } as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Estimated data URL length of one image of `kind` (base64: 4 characters per 3 bytes). */
function estimatedUrlBytes(kind: Record<string, unknown>): number {
  const { width, height } = kind;
  if (typeof width !== 'number' || typeof height !== 'number') return 0;
  const perPixel = kind.format === 'jpeg' ? BYTES_PER_PIXEL.jpeg : BYTES_PER_PIXEL.png;
  return Math.ceil((width * height * perPixel) / 3) * 4;
}

const mib = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MiB`;

/** `prompt.images` as merged for one scenario (or class); `path` is where it is written. */
export function checkImages(images: unknown, path: IssuePath): ProfileIssue[] {
  if (!Array.isArray(images)) return [];
  let body = 0;
  let pool = 0;
  for (const kind of images) {
    if (!isRecord(kind)) continue;
    const one = estimatedUrlBytes(kind);
    body += (typeof kind.count === 'number' ? kind.count : 1) * one;
    pool += (typeof kind.variants === 'number' ? kind.variants : 4) * one;
  }
  const issues: ProfileIssue[] = [];
  if (body > MAX_BODY_IMAGE_BYTES)
    issues.push({
      path,
      message: `each request would carry about ${mib(body)} of images, above the ${mib(MAX_BODY_IMAGE_BYTES)} limit: lower count or the sizes, or use format: jpeg (about a tenth of a PNG)`,
    });
  if (pool > MAX_POOL_IMAGE_BYTES)
    issues.push({
      path,
      message: `the images built for this scenario (variants of each kind) would hold about ${mib(pool)}, above the ${mib(MAX_POOL_IMAGE_BYTES)} limit: lower variants or the sizes, or use format: jpeg`,
    });
  return issues;
}

/** Defaults: png, detail not sent, one image per request, four variants. */
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
