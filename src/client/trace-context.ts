/**
 * A W3C Trace Context `traceparent` per request (https://www.w3.org/TR/trace-context/): version 00, a
 * fresh 16-byte trace id, an 8-byte parent (span) id, flags 01 (sampled). The trace id is recorded in
 * requests.csv, so a request is found in the server's spans and logs; the same header goes on every
 * attempt of a retried request, as its x-request-id does.
 */
import { randomFillSync } from 'node:crypto';

export interface TraceContext {
  /** 32 lower-case hex digits. */
  readonly traceId: string;
  readonly traceparent: string;
}

// One crypto call per 64 requests: 24 random bytes each (trace id and span id), from a refilled pool.
const POOL = Buffer.alloc(24 * 64);
let next = POOL.length;

export function newTraceContext(): TraceContext {
  if (next === POOL.length) {
    randomFillSync(POOL);
    next = 0;
  }
  const traceId = POOL.toString('hex', next, next + 16);
  const spanId = POOL.toString('hex', next + 16, next + 24);
  next += 24;
  // An all-zero id is invalid (the spec's only forbidden value): 2^-128, but cheap to rule out.
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return newTraceContext();
  return { traceId, traceparent: `00-${traceId}-${spanId}-01` };
}
