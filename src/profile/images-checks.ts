/**
 * The size rules of `prompt.images` a per-field schema cannot express: what one request body and the
 * pool of built images weigh. Each kind's `count` images go in every request, and `variants` images of
 * each kind are made and held when the workload is built, so 50 x 4096x4096 PNG would be a 1.6 GB body and
 * 64 variants of it 2 GB of memory. Checked on an estimate before anything is built (validate finds it);
 * synthetic-image-parts.ts measures what was built against the same limits.
 */
import type { IssuePath, ProfileIssue } from './profile-issue.js';

/** Most image data (data URL characters) one request body may carry. */
export const MAX_BODY_IMAGE_BYTES = 256 * 1024 * 1024;
/** Above this a run warns: the embedded emulator's body limit (32 MiB), and the order of many servers'. */
export const LARGE_BODY_IMAGE_BYTES = 32 * 1024 * 1024;
/** Most image data a scenario's pools of variants may hold. */
export const MAX_POOL_IMAGE_BYTES = 1024 * 1024 * 1024;

/**
 * Encoded bytes per pixel of the synthetic images (seeded waves with light noise), a little above what
 * they measure: about 1.62 as PNG and 0.18 as JPEG at 512x512 to 1280x720 (README, Images).
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
