/** Checks of the API's request headers that apply before the body is read: version and queue_threshold. */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../api-error.js';
import { API_VERSION_PATCH, HEADER, QUEUE_THRESHOLD_MAX_MS, QUEUE_THRESHOLD_MIN_MS } from '../../protocol/headers.js';

function single(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** `X-Service-Version-Patch`: absent or "2"; anything else is a 400 invalid_version. */
export function checkVersion(req: IncomingMessage): void {
  const value = single(req, HEADER.versionPatch);
  if (value === undefined || value.trim() === API_VERSION_PATCH) return;
  throw new ApiError(
    400,
    'invalid_request_error',
    'invalid_version',
    `Unsupported X-Service-Version-Patch "${value.slice(0, 32)}": the only live version is ${API_VERSION_PATCH}.`,
    HEADER.versionPatch,
  );
}

/**
 * `queue_threshold` in ms, validated whenever present (integer string, 50..20000); undefined when absent.
 * It only takes effect for `flex` and `auto` requests (the caller decides).
 */
export function queueThresholdMs(req: IncomingMessage): number | undefined {
  const value = single(req, HEADER.queueThreshold);
  if (value === undefined) return undefined;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(ms >= QUEUE_THRESHOLD_MIN_MS && ms <= QUEUE_THRESHOLD_MAX_MS)) {
    throw new ApiError(
      400,
      'invalid_request_error',
      'wrong_api_format',
      `queue_threshold must be an integer number of milliseconds from ${QUEUE_THRESHOLD_MIN_MS} to ${QUEUE_THRESHOLD_MAX_MS}, got "${text.slice(0, 32)}".`,
      HEADER.queueThreshold,
    );
  }
  return ms;
}
