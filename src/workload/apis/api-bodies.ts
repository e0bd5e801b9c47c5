/**
 * The request body of each built API (protocol/apis.ts), made from the chat body the workload builds for
 * every request (model, messages, the scenario's request fields, service_tier, max_completion_tokens,
 * stream, stream_options...). A registry the compiler checks: an API added to BUILT_APIS without its
 * builder here does not compile. Chat's is null: its body is sent as built, at no cost per request.
 *
 * A builder runs once per request, off the hot path of the response; it may throw BAD_PROFILE for a
 * request its API cannot express that the profile checks could not see (a dataset entry's shape).
 */
import type { BuiltApi } from '../../protocol/apis.js';
import { completionsBody } from './completions-body.js';

/** The API's body from the chat body (a new object; the chat body is not changed). */
export type ApiBodyBuilder = (chat: Readonly<Record<string, unknown>>) => Record<string, unknown>;

export const API_BODIES = {
  chat: null,
  completions: completionsBody,
} as const satisfies Record<BuiltApi, ApiBodyBuilder | null>;
