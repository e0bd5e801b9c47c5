/**
 * `Content-Encoding: gzip` as a decorator over any body encoder. Synchronous on purpose: request bodies
 * are a few KiB and a sync deflate of that costs tens of microseconds, less than a trip through the
 * zlib thread pool would add in jitter to the send time.
 */
import { gzipSync } from 'node:zlib';
import { HEADER } from '../protocol/headers.js';
import type { BodyEncoder } from './body-encoders.js';

/** Wraps `inner` so its payload is gzip-compressed and labelled so. */
export function gzipBody(inner: BodyEncoder): BodyEncoder {
  return (body) => {
    const encoded = inner(body);
    return {
      payload: gzipSync(encoded.payload),
      headers: { ...encoded.headers, [HEADER.contentEncoding]: 'gzip' },
    };
  };
}
