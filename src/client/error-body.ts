/**
 * Reads `message` and `code` out of a server's error: the API's flat body (`{message, type, param,
 * code}`), the OpenAI-style wrapper (`{error: {...}}`), the in-stream event (`{error: {...},
 * status_code}`) and Anthropic's body and `error` event (`{type: "error", error: {type, message}}`: no
 * code, so its error `type`, e.g. overloaded_error, is the code) all come through here.
 */
import { isObject } from './json-shape.js';

/** What the record keeps of a server error. */
export interface ErrorDetails {
  readonly message: string | null;
  readonly code: string | null;
}

/** `{message, code}` of an error body of any of the accepted shapes; nulls when absent. */
export function errorDetails(body: unknown): ErrorDetails {
  if (!isObject(body)) return { message: null, code: null };
  const inner = body['error'];
  const source = isObject(inner) ? inner : body;
  const message = source['message'];
  // Anthropic's envelope has no code: the error's type (overloaded_error, rate_limit_error...) names it.
  const code = source['code'] ?? (body['type'] === 'error' && isObject(inner) ? inner['type'] : undefined);
  return {
    message: typeof message === 'string' ? message : typeof inner === 'string' ? inner : null,
    code: typeof code === 'string' ? code : typeof code === 'number' ? String(code) : null,
  };
}
