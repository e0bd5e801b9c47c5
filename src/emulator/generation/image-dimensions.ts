/**
 * The size of an image sent as a base64 data URL, read from its header (image-size) without decoding
 * the pixels: the emulator bills images by their size (protocol/image-tokens.ts) and refuses data that
 * is not an image. Only the first kilobyte is base64-decoded: PNG, WebP and GIF give their size within
 * it, and data that is none of them is refused from it. A JPEG can put its size (the SOF segment) behind
 * metadata of any length, so its segments are walked instead, decoding only the few bytes of each
 * segment's header: the cost is the number of segments, never the length of the data.
 *
 * The validator and the token count read the same `image_url` object: its dimensions are remembered per
 * object (weakly), so each image is read once per request.
 */
import { imageSize } from 'image-size';

/** Formats a vision model takes, as image-size names them: PNG, JPEG, WebP and GIF (OpenAI's list). */
const ACCEPTED_TYPES = new Set(['png', 'jpg', 'webp', 'gif']);
/** Base64 characters of the first window (a multiple of 4): 1,026 bytes, every format's header. */
const HEAD_CHARS = 1368;
/** Base64 characters decoded per read past it, when walking a JPEG's segments: 48 bytes. */
const WINDOW_CHARS = 64;
/** JPEG steps walked before giving up (real files have a few dozen segments); each reads two windows at most. */
const MAX_JPEG_SEGMENTS = 1024;

export interface ImageDimensions {
  readonly width: number;
  readonly height: number;
  /** image-size's type: png, jpg, webp or gif. */
  readonly type: string;
}

/** Bytes of base64 data read at byte offsets: the head, then one window of WINDOW_CHARS characters at a time. */
class Base64Bytes {
  readonly #text: string;
  readonly #dataStart: number;
  /** Decoded length of the whole data. */
  readonly size: number;
  /** The first window: where every accepted format starts. */
  readonly head: Uint8Array;
  #windowStart = 0;
  #window: Uint8Array;

  constructor(text: string, dataStart: number) {
    this.#text = text;
    this.#dataStart = dataStart;
    const chars = text.length - dataStart;
    let padding = 0;
    if (text.endsWith('==')) padding = 2;
    else if (text.endsWith('=')) padding = 1;
    this.size = Math.max(0, Math.floor((chars * 3) / 4) - padding);
    this.head = this.#decode(0, HEAD_CHARS);
    this.#window = this.head;
  }

  /** The byte at `at`, or -1 past the end. */
  byte(at: number): number {
    if (at < 0 || at >= this.size) return -1;
    if (at < this.#windowStart || at >= this.#windowStart + this.#window.length) {
      this.#windowStart = Math.floor(at / 3) * 3;
      this.#window = this.#decode(this.#windowStart, WINDOW_CHARS);
    }
    return this.#window[at - this.#windowStart] ?? -1;
  }

  /** The big-endian 16-bit number at `at`, or -1 past the end. */
  uint16(at: number): number {
    const high = this.byte(at);
    const low = this.byte(at + 1);
    return high < 0 || low < 0 ? -1 : (high << 8) | low;
  }

  /** A copy with its own ArrayBuffer: image-size reads through a DataView, never past these bytes. */
  #decode(byteStart: number, chars: number): Uint8Array {
    const from = this.#dataStart + (byteStart / 3) * 4;
    return new Uint8Array(Buffer.from(this.#text.substring(from, from + chars), 'base64'));
  }
}

/**
 * A JPEG's size from its SOF0-2 segment, walking the segments as image-size does (same acceptance),
 * but decoding only their headers. null when there is none before the data ends.
 */
function jpegDimensions(bytes: Base64Bytes): ImageDimensions | null {
  // After the SOI marker (FFD8) and the first segment's marker: its length field.
  let at = 4;
  for (let segment = 0; segment < MAX_JPEG_SEGMENTS; segment++) {
    const length = bytes.uint16(at);
    if (length < 0) return null;
    const marker = at + length;
    const first = bytes.byte(marker);
    if (first < 0) return null;
    if (first !== 0xff) {
      at += 1;
      continue;
    }
    const kind = bytes.byte(marker + 1);
    if (kind === 0xc0 || kind === 0xc1 || kind === 0xc2) {
      const height = bytes.uint16(marker + 5);
      const width = bytes.uint16(marker + 7);
      return width > 0 && height > 0 ? { width, height, type: 'jpg' } : null;
    }
    at = marker + 2;
  }
  return null;
}

/** The dimensions in `head` (the first bytes) of a PNG, WebP or GIF image, or null. */
function headerDimensions(head: Uint8Array): ImageDimensions | null {
  try {
    const size = imageSize(head);
    const type = size.type ?? '';
    if (!ACCEPTED_TYPES.has(type) || !(size.width > 0) || !(size.height > 0)) return null;
    return { width: size.width, height: size.height, type };
  } catch {
    // Not an image, or a header cut short.
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
  const bytes = new Base64Bytes(url, comma + 1);
  const { head } = bytes;
  if (head[0] === 0xff && head[1] === 0xd8) return jpegDimensions(bytes);
  return headerDimensions(head);
}

/** Dimensions read per `image_url` object, with the url they were read from (a changed url is read again). */
const readByPart = new WeakMap<object, { readonly url: string; readonly dimensions: ImageDimensions | null }>();

/**
 * readImageDimensions of an `image_url` object's url, read once per object: validation, the token count
 * and the prompt cache all ask about the same part. null when it is not an object with a string url, or
 * the url holds no image.
 */
export function imageUrlDimensions(imageUrl: unknown): ImageDimensions | null {
  if (typeof imageUrl !== 'object' || imageUrl === null) return null;
  const url = (imageUrl as { url?: unknown }).url;
  if (typeof url !== 'string') return null;
  const known = readByPart.get(imageUrl);
  // The same string, as it is on every later call, compares by reference.
  if (known !== undefined && known.url === url) return known.dimensions;
  const dimensions = readImageDimensions(url);
  readByPart.set(imageUrl, { url, dimensions });
  return dimensions;
}
