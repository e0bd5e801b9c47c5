/**
 * Request body decoding: `application/json` (the default when no Content-Type is sent) or
 * `application/vnd.msgpack`, either optionally `Content-Encoding: gzip`. The body is capped (413 beyond
 * the cap, checked both on the wire and after gunzip so a small gzip bomb cannot blow up memory).
 */
import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { decode as decodeMsgpack } from '@msgpack/msgpack';
import { ApiError } from '../api-error.js';
import { CONTENT_TYPE, HEADER } from '../../protocol/headers.js';

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

async function readRaw(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * Reads and decodes the body. Content type and encoding are checked before reading, so a wrong one is
 * answered without consuming a large upload.
 */
export async function readBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const format = bodyFormat(req);
  const gzip = isGzip(req);
  let bytes = await readRaw(req, maxBytes);
  if (gzip) {
    try {
      bytes = await gunzipAsync(bytes, { maxOutputLength: maxBytes });
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
  if (format === 'msgpack') {
    try {
      return decodeMsgpack(bytes);
    } catch {
      throw new ApiError(400, 'invalid_request_error', 'wrong_api_format', 'The body is not valid MessagePack.');
    }
  }
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ApiError(400, 'invalid_request_error', 'wrong_api_format', 'The body is not valid JSON.');
  }
}
