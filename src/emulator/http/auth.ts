/**
 * Bearer-key checks for the two kinds of key: inference keys (chat, models, files) and management keys
 * (the management listing). A key is always of one kind: a configured key of the other kind is refused.
 * With no keys of a kind configured, any non-empty key is accepted for that kind (except a configured
 * key of the other kind), which keeps the emulator usable with no setup. Keys never appear in messages.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../api-error.js';
import { HEADER } from '../../protocol/headers.js';

export type KeyKind = 'inference' | 'management';

export interface KeySets {
  readonly inference: ReadonlySet<string>;
  readonly management: ReadonlySet<string>;
}

/** The bearer token of a request, or undefined when absent or empty. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers[HEADER.authorization];
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const token = match?.[1]?.trim();
  return token ? token : undefined;
}

/** `param` is `api_key`, as the real service sends it on a 401. */
function unauthorized(code: 'missing_api_key' | 'wrong_api_key', message: string): ApiError {
  return new ApiError(401, 'invalid_request_error', code, message, 'api_key', { 'www-authenticate': 'Bearer' });
}

/** Returns the accepted key or throws a 401 ApiError. */
export function authenticate(req: IncomingMessage, kind: KeyKind, keys: KeySets): string {
  const token = bearerToken(req);
  const label = kind === 'inference' ? 'API key' : 'management key';
  if (token === undefined) {
    throw unauthorized(
      'missing_api_key',
      `No ${label} provided. Send "Authorization: Bearer <${kind === 'inference' ? 'API_KEY' : 'MANAGEMENT_API_KEY'}>".`,
    );
  }
  const own = keys[kind];
  const other = keys[kind === 'inference' ? 'management' : 'inference'];
  if (own.has(token)) return token;
  if (other.has(token)) {
    throw unauthorized(
      'wrong_api_key',
      kind === 'inference'
        ? 'A management key cannot be used for inference, model or file endpoints; use an API key.'
        : 'An API key cannot be used for the management endpoints; use a management key.',
    );
  }
  if (own.size === 0) return token;
  throw unauthorized('wrong_api_key', `Wrong ${label} provided.`);
}
