/**
 * How each API's requests carry the key and the headers the API itself requires. OpenAI's APIs (and every
 * OpenAI-compatible server) take `Authorization: Bearer <key>`; Anthropic's Messages API takes
 * `x-api-key: <key>` and requires `anthropic-version`. The key itself comes only from the environment
 * (the profile's api_key_env or --api-key-env) and is added by auth-interceptor.ts alone, never logged.
 */
import type { ApiKind } from '../../protocol/apis.js';
import { HEADER } from '../../protocol/headers.js';

export type AuthScheme = 'bearer' | 'x-api-key';

/** The scheme of an API not listed here is `bearer`. */
const AUTH_SCHEMES: Partial<Record<ApiKind, AuthScheme>> = { messages: 'x-api-key' };

/** Anthropic's API version this client speaks (its event and body shapes: docs/apis.md). */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Headers an API requires on every request (a target header of the same name, from the profile, wins). */
const API_HEADERS: Partial<Record<ApiKind, Readonly<Record<string, string>>>> = {
  messages: { 'anthropic-version': ANTHROPIC_VERSION },
};

const NO_HEADERS: Readonly<Record<string, string>> = {};

export function authSchemeOf(api: ApiKind): AuthScheme {
  return AUTH_SCHEMES[api] ?? 'bearer';
}

export function apiHeadersOf(api: ApiKind): Readonly<Record<string, string>> {
  return API_HEADERS[api] ?? NO_HEADERS;
}

/** The header that carries `apiKey` as `scheme` sends it: its name and value. */
export function keyHeader(apiKey: string, scheme: AuthScheme): readonly [name: string, value: string] {
  return scheme === 'bearer' ? [HEADER.authorization, `Bearer ${apiKey}`] : [HEADER.apiKey, apiKey];
}
