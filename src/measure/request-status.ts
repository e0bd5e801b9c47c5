/**
 * How one request ended, for counting: ok (no error class), throttled (http_429, kept apart: a 429 is the
 * service protecting itself, not a failure) or failed (every other class).
 */
import type { RequestRecord } from '../client/request-record.js';

export function isOk(record: RequestRecord): boolean {
  return record.errorClass === null;
}

export function isThrottled(record: RequestRecord): boolean {
  return record.errorClass === 'http_429';
}

export function isFailed(record: RequestRecord): boolean {
  return record.errorClass !== null && record.errorClass !== 'http_429';
}
