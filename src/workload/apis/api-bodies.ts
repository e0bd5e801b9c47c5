/**
 * How each built API (protocol/apis.ts) makes its request from what the workload builds for every
 * request, the chat body (model, messages, the scenario's request fields, service_tier,
 * max_completion_tokens, stream, stream_options...). A registry the compiler checks: an API added to
 * API_KINDS without its row here does not compile. Chat's row is empty: its body is sent as built, at no
 * cost per request.
 */
import type { ApiKind } from '../../protocol/apis.js';
import type { ChatMessage } from '../../protocol/chat.js';
import { completionsBody, completionsPromptProblem } from './completions-body.js';
import { embeddingsBatchBody, embeddingsBody, embeddingsPromptProblem } from './embeddings-body.js';
import { responsesBody } from './responses-body.js';
import { messagesBody, messagesPromptProblem } from './messages-body.js';

/** The API's body from the chat body (a new object; the chat body is not changed). Once per request. */
export type ApiBodyBuilder = (chat: Readonly<Record<string, unknown>>) => Record<string, unknown>;

export interface ApiRequests {
  /** The body; null: the chat body as built. May throw BAD_PROFILE for a prompt it cannot express. */
  readonly body: ApiBodyBuilder | null;
  /**
   * Why a prompt's messages (a dataset entry's) cannot be sent in this API; null when they can. Every
   * dataset entry is checked when the workload is built, so a bad entry is an error naming its line
   * before anything is sent. null: every prompt can.
   */
  readonly promptProblem: ((messages: readonly ChatMessage[]) => string | null) | null;
  /**
   * The body of several prompts in one request (`inputs_per_request`, one chat body per prompt, in
   * order); absent: the API sends one prompt per request (the profile refuses inputs_per_request for it).
   */
  readonly batchBody?: (chats: readonly Readonly<Record<string, unknown>>[]) => Record<string, unknown>;
}

export const API_REQUESTS = {
  chat: { body: null, promptProblem: null },
  completions: { body: completionsBody, promptProblem: completionsPromptProblem },
  embeddings: { body: embeddingsBody, promptProblem: embeddingsPromptProblem, batchBody: embeddingsBatchBody },
  responses: { body: responsesBody, promptProblem: null },
  messages: { body: messagesBody, promptProblem: messagesPromptProblem },
} as const satisfies Record<ApiKind, ApiRequests>;

/** What stands for the workload's prompt in bodyShape. */
export const PROMPT_PLACEHOLDER = '<prompt>';

/**
 * The body `api` sends for a scenario's request fields, with PROMPT_PLACEHOLDER as its one user prompt: what
 * `validate` shows, so that a non-chat scenario's plan shows the fields its API really sends (an embeddings
 * request is never streamed; Messages has no stream_options).
 */
export function bodyShape(api: ApiKind, request: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const chat = { ...request, messages: [{ role: 'user', content: PROMPT_PLACEHOLDER }] };
  const build: ApiBodyBuilder | null = API_REQUESTS[api].body;
  return build === null ? chat : build(chat);
}
