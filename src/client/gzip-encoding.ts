/**
 * `Content-Encoding: gzip` as a decorator over any body encoder. Synchronous on purpose: request bodies
 * are a few KiB and a sync deflate of that costs tens of microseconds, less than a trip through the
 * zlib thread pool would add in jitter to the send time.
 */
import { gzipSync } from 'node:zlib';
import { HEADER } from '../protocol/headers.js';
import type { BodyEncoder, EncodedBody } from './body-encoders.js';

/** Wraps `inner` so its payload is gzip-compressed and labelled so. */
export function gzipBody(inner: BodyEncoder): BodyEncoder {
  // The inner encoder's headers object is constant: its gzip variant is made once, so the client can
  // merge it with the target's headers once too (inference-client.ts).
  let innerHeaders: EncodedBody['headers'] | null = null;
  let headers: EncodedBody['headers'] = {};
  return (body) => {
    const encoded = inner(body);
    if (encoded.headers !== innerHeaders) {
      innerHeaders = encoded.headers;
      headers = { ...encoded.headers, [HEADER.contentEncoding]: 'gzip' };
    }
    return { payload: gzipSync(encoded.payload), headers };
  };
}
