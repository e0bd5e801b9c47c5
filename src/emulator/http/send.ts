/**
 * Writing responses: JSON bodies and the one error path. Every error the emulator answers with goes
 * through `sendError`, so every endpoint has the same flat body `{message,type,param,code}` and no
 * stack trace ever reaches a client.
 */
import type { ServerResponse } from 'node:http';
import { ApiError } from '../api-error.js';
import { CONTENT_TYPE } from '../../protocol/headers.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': CONTENT_TYPE.json,
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/** Any thrown value -> an ApiError (unexpected ones become a generic 500 that says nothing internal). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(
    500,
    'internal_server_error',
    'internal_error',
    'The server had an error while processing your request.',
  );
}

/** Answers with the error, or ends the response when headers have already gone out. */
export function sendError(
  res: ServerResponse,
  error: unknown,
  extraHeaders: Readonly<Record<string, string>> = {},
): void {
  const apiError = toApiError(error);
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  sendJson(res, apiError.status, apiError.toBody(), { ...extraHeaders, ...apiError.headers });
}
