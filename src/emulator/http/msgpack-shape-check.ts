/**
 * Walks a MessagePack body's item headers without building values, before the decoder runs: nesting
 * depth and value count within the limits (see body-shape-limits.ts), every length inside the body (a
 * map that claims 2^32 entries in a few bytes is refused at once), every string valid UTF-8 (the decoder
 * would silently turn bad bytes into other characters), and nothing after the one top-level value.
 */
import { isUtf8 } from 'node:buffer';
import { ApiError } from '../api-error.js';
import { BODY_SHAPE_LIMITS, type BodyShapeLimits, nestedTooDeep, tooManyValues } from './body-shape-limits.js';

/** One item header: where the next item starts, how many items it contains, and its string bytes if any. */
interface ItemHeader {
  readonly next: number;
  readonly children: number;
  readonly isContainer: boolean;
  readonly stringStart?: number;
}

function malformed(detail: string): ApiError {
  return new ApiError(
    400,
    'invalid_request_error',
    'wrong_api_format',
    `The body is not valid MessagePack: ${detail}.`,
  );
}

/** Reads an unsigned big-endian length of `width` bytes at `at`. */
function readLength(view: DataView, at: number, width: number): number {
  if (at + width > view.byteLength) throw malformed('truncated');
  if (width === 1) return view.getUint8(at);
  return width === 2 ? view.getUint16(at) : view.getUint32(at);
}

const FIXED_SIZES: Readonly<Record<number, number>> = {
  192: 1,
  194: 1,
  195: 1,
  202: 5,
  203: 9,
  204: 2,
  205: 3,
  206: 5,
  207: 9,
  208: 2,
  209: 3,
  210: 5,
  211: 9,
  212: 3,
  213: 4,
  214: 6,
  215: 10,
  216: 18,
};
const WIDTH_OF: Readonly<Record<number, number>> = {
  196: 1,
  197: 2,
  198: 4,
  199: 1,
  200: 2,
  201: 4,
  217: 1,
  218: 2,
  219: 4,
  220: 2,
  221: 4,
  222: 2,
  223: 4,
};

/**
 * The header of the item at `at` (its payload is not read, except to bound it); undefined when
 * `isPrefix` and the header itself is cut off.
 */
function itemHeader(view: DataView, at: number, isPrefix: boolean): ItemHeader | undefined {
  const tag = view.getUint8(at);
  if (tag <= 0x7f || tag >= 0xe0) return { next: at + 1, children: 0, isContainer: false };
  if (tag <= 0x8f) return { next: at + 1, children: (tag & 0x0f) * 2, isContainer: true };
  if (tag <= 0x9f) return { next: at + 1, children: tag & 0x0f, isContainer: true };
  if (tag <= 0xbf) return { next: at + 1 + (tag & 0x1f), children: 0, isContainer: false, stringStart: at + 1 };
  const fixed = FIXED_SIZES[tag];
  if (fixed !== undefined) return { next: at + fixed, children: 0, isContainer: false };
  const width = WIDTH_OF[tag];
  if (width === undefined) throw malformed(`byte 0x${tag.toString(16)} at offset ${at} starts no value`);
  if (isPrefix && at + 1 + width > view.byteLength) return undefined;
  const count = readLength(view, at + 1, width);
  const start = at + 1 + width;
  if (tag >= 0xdc) return { next: start, children: tag >= 0xde ? count * 2 : count, isContainer: true };
  const isExt = tag >= 0xc7 && tag <= 0xc9;
  const isString = tag >= 0xd9;
  return {
    next: start + count + (isExt ? 1 : 0),
    children: 0,
    isContainer: false,
    stringStart: isString ? start : undefined,
  };
}

/**
 * Throws a 400 ApiError unless `bytes` is one well-formed MessagePack value within `limits`. With
 * `isPrefix`, `bytes` is only the start of the body: running out of bytes is no error, only an excess of
 * the limits (or bad UTF-8, or a bad tag) is.
 */
export function checkMsgpackShape(
  bytes: Uint8Array,
  limits: BodyShapeLimits = BODY_SHAPE_LIMITS,
  isPrefix = false,
): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Items still to read at each open level; the bottom entry is the one top-level value.
  const pending: number[] = [1];
  let at = 0;
  let values = 0;
  while (pending.length > 0) {
    const level = pending.length - 1;
    if (pending[level] === 0) {
      pending.pop();
      continue;
    }
    pending[level]!--;
    if (at >= bytes.length) {
      if (isPrefix) return;
      throw malformed('truncated');
    }
    if (++values > limits.maxValues) throw tooManyValues('MessagePack', limits.maxValues);
    const item = itemHeader(view, at, isPrefix);
    if (item === undefined || (isPrefix && item.next > bytes.length)) return;
    if (item.next > bytes.length) throw malformed(`a value at offset ${at} runs past the end of the body`);
    if (item.stringStart !== undefined && !isUtf8(bytes.subarray(item.stringStart, item.next)))
      throw malformed(`the string at offset ${at} is not valid UTF-8`);
    at = item.next;
    if (!item.isContainer) continue;
    if (pending.length > limits.maxDepth) throw nestedTooDeep('MessagePack', limits.maxDepth);
    if (!isPrefix && item.children > bytes.length - at)
      throw malformed(`a container declares ${item.children} items but only ${bytes.length - at} bytes follow`);
    pending.push(item.children);
  }
  if (at !== bytes.length && !isPrefix) throw malformed(`${bytes.length - at} bytes follow the value`);
}
