/**
 * Bearer authentication as an undici interceptor (composed onto the pool), so no other part of the
 * client ever handles the key. Without a key, requests pass through untouched.
 */
import type { Dispatcher } from 'undici';
import { HEADER } from '../protocol/headers.js';

/** Adds `Authorization: Bearer <key>` to every request dispatched through it. */
export function authInterceptor(apiKey: string | null): Dispatcher.DispatcherComposeInterceptor {
  if (apiKey === null || apiKey === '') return (dispatch) => dispatch;
  const value = `Bearer ${apiKey}`;
  return (dispatch) => (options, handler) =>
    dispatch(
      {
        ...options,
        headers: { ...(options.headers as Record<string, string> | undefined), [HEADER.authorization]: value },
      },
      handler,
    );
}
