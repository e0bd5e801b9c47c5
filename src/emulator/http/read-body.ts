/**
 * Request body decoding: `application/json` (the default when no Content-Type is sent) or
 * `application/vnd.msgpack`, either optionally `Content-Encoding: gzip`. The body is capped (413 beyond
 * the cap, checked both on the wire and after gunzip so a small gzip bomb cannot blow up memory). Before
 * parsing, its shape is checked (depth, number of values, UTF-8: json-shape-check.ts,
 * msgpack-shape-check.ts), so no body can stall the event loop or crash a later serializer.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { decode as decodeMsgpack } from '@msgpack/msgpack';
import { ApiError } from '../api-error.js';
import { CONTENT_TYPE, HEADER } from '../../protocol/headers.js';
import { checkJsonShape } from './json-shape-check.js';
import { checkMsgpackShape } from './msgpack-shape-check.js';

const gunzipAsync = promisify(gunzip);

/** 32 MiB: room for many large base64 images, far below what would hurt the process. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

type BodyFormat = 'json' | 'msgpack';

function bodyFormat(req: IncomingMessage): BodyFormat {
  const header = req.headers[HEADER.contentType];
  const mediaType = (header ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === '' || mediaType === CONTENT_TYPE.json) return 'json';
  if (
    mediaType === CONTENT_TYPE.msgpack ||
    mediaType === 'application/msgpack' ||
    mediaType === 'application/x-msgpack'
  )
    return 'msgpack';
  throw new ApiError(
    415,
    'invalid_request_error',
    'unsupported_content_type',
    `Unsupported Content-Type "${mediaType}": send ${CONTENT_TYPE.json} or ${CONTENT_TYPE.msgpack}.`,
  );
}

function isGzip(req: IncomingMessage): boolean {
  const header = (req.headers[HEADER.contentEncoding] ?? '').trim().toLowerCase();
  if (header === '' || header === 'identity') return false;
  if (header === 'gzip' || header === 'x-gzip') return true;
  throw new ApiError(
    415,
    'invalid_request_error',
    'unsupported_content_encoding',
    `Unsupported Content-Encoding "${header}": only gzip is accepted.`,
  );
}

function tooLarge(): ApiError {
  return new ApiError(
    413,
    'invalid_request_error',
    'request_too_large',
    `The request body exceeds ${MAX_BODY_BYTES} bytes.`,
  );
}

/** Bytes read before a first shape check of what has arrived (see readRaw). */
const PREFIX_CHECK_BYTES = 1024 * 1024;

/**
 * Reads the body up to `maxBytes`. When `checkPrefix` is given, it runs once on the first megabyte, so
 * a body whose start already breaks a shape limit is refused before the rest is buffered and copied
 * (tens of milliseconds of the event loop for a 30 MB body).
 */
async function readRaw(
  req: IncomingMessage,
  maxBytes: number,
  checkPrefix?: (prefix: Buffer) => void,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  let prefixChecked = checkPrefix === undefined;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge();
    chunks.push(chunk);
    if (!prefixChecked && total >= PREFIX_CHECK_BYTES) {
      prefixChecked = true;
      checkPrefix?.(Buffer.concat(chunks, total));
    }
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

async function gunzipCapped(bytes: Buffer, maxBytes: number): Promise<Buffer> {
  try {
    return await gunzipAsync(bytes, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new ApiError(
      400,
      'invalid_request_error',
      'wrong_api_format',
      'The body is not valid gzip (Content-Encoding: gzip).',
    );
  }
}

function parseMsgpack(bytes: Buffer): unknown {
  checkMsgpackShape(bytes);
  try {
    return decodeMsgpack(bytes);
  } catch {
    throw new ApiError(400, 'invalid_request_error', 'wrong_api_format', 'The body is not valid MessagePack.');
  }
}

function parseJson(bytes: Buffer): unknown {
  // The shape check first: it stops at the first excess, so a flood of values is refused after reading
  // a few hundred kilobytes, where the UTF-8 check reads all of the body.
  checkJsonShape(bytes);
  if (!isUtf8(bytes))
    throw new ApiError(400, 'invalid_request_error', 'wrong_api_format', 'The body is not valid UTF-8.');
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ApiError(400, 'invalid_request_error', 'wrong_api_format', 'The body is not valid JSON.');
  }
}

/**
 * Reads and decodes the body. Content type and encoding are checked before reading, so a wrong one is
 * answered without consuming a large upload.
 */
export async function readBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const format = bodyFormat(req);
  const gzip = isGzip(req);
  // A prefix of a gzip body says nothing about the decoded shape: only plain bodies are checked early.
  const checkPrefix = gzip
    ? undefined
    : (prefix: Buffer) => (format === 'msgpack' ? checkMsgpackShape(prefix, undefined, true) : checkJsonShape(prefix));
  const raw = await readRaw(req, maxBytes, checkPrefix);
  const bytes = gzip ? await gunzipCapped(raw, maxBytes) : raw;
  return format === 'msgpack' ? parseMsgpack(bytes) : parseJson(bytes);
}
