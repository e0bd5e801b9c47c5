/**
 * Authentication as an undici interceptor (composed onto the pool), so no other part of the client ever
 * handles the key: `Authorization: Bearer <key>`, or `x-api-key: <key>` for an API that takes it
 * (Anthropic's: apis/api-auth.ts). Without a key, requests pass through untouched.
 */
import type { Dispatcher } from 'undici';
import { type AuthScheme, keyHeader } from './apis/api-auth.js';

/** Adds the key to every request dispatched through it, as `scheme` sends it. */
export function authInterceptor(
  apiKey: string | null,
  scheme: AuthScheme = 'bearer',
): Dispatcher.DispatcherComposeInterceptor {
  if (apiKey === null || apiKey === '') return (dispatch) => dispatch;
  const [name, value] = keyHeader(apiKey, scheme);
  return (dispatch) => (options, handler) =>
    dispatch(
      {
        ...options,
        headers: { ...(options.headers as Record<string, string> | undefined), [name]: value },
      },
      handler,
    );
}
