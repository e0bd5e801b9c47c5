/**
 * The size of an image sent as a base64 data URL, read from its header (image-size) without decoding
 * the pixels: the emulator bills images by their size (protocol/image-tokens.ts) and refuses data that
 * is not an image. Only the first bytes are base64-decoded (1 KB, then more only when the header reaches
 * further, as a JPEG's can behind metadata), so a request with a large image stays cheap.
 */
import { imageSize } from 'image-size';

/** Formats a vision model takes, as image-size names them: PNG, JPEG, WebP and GIF (OpenAI's list). */
const ACCEPTED_TYPES = new Set(['png', 'jpg', 'webp', 'gif']);
/** Base64 characters decoded per attempt (multiples of 4): 1 KB, 48 KB, 768 KB, then all. */
const PREFIX_CHARS = [1368, 65_536, 1_048_576];

export interface ImageDimensions {
  readonly width: number;
  readonly height: number;
  /** image-size's type: png, jpg, webp or gif. */
  readonly type: string;
}

/** The dimensions of `bytes`, or null when they are not (the start of) an accepted image. */
function dimensionsOf(bytes: Uint8Array): ImageDimensions | null {
  try {
    const size = imageSize(bytes);
    const type = size.type ?? '';
    if (!ACCEPTED_TYPES.has(type) || !(size.width > 0) || !(size.height > 0)) return null;
    return { width: size.width, height: size.height, type };
  } catch {
    // Not an image, or its header reaches past the bytes decoded so far.
    return null;
  }
}

/**
 * The dimensions of the image in a `data:<media type>;base64,<data>` URL, or null when its data is not a
 * PNG, JPEG, WebP or GIF image. The media type is not compared with the data (the data decides).
 */
export function readImageDimensions(url: string): ImageDimensions | null {
  const comma = url.indexOf(',');
  if (comma < 0) return null;
  const base64Chars = url.length - comma - 1;
  for (const chars of [...PREFIX_CHARS.filter((n) => n < base64Chars), base64Chars]) {
    // A copy with its own ArrayBuffer: image-size reads through a DataView, never past these bytes.
    const bytes = new Uint8Array(Buffer.from(url.substring(comma + 1, comma + 1 + chars), 'base64'));
    const dimensions = dimensionsOf(bytes);
    if (dimensions !== null) return dimensions;
  }
  return null;
}
