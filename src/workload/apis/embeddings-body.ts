/**
 * The body of POST /v1/embeddings, from the chat bodies the workload built: `{ model, input,
 * encoding_format: "float" }`, `input` being the user message's text (token-exact, no roles) or, with
 * `inputs_per_request: N`, the array of N such texts (one per chat body). `user` and every request_extra
 * field (`dimensions`, or `encoding_format` to ask for base64) are sent as given; the generation fields a
 * chat body carries (stream, stream_options, max_completion_tokens...) are not: the profile refuses those
 * it was asked for (profile/sections/api.ts), and `stream: true` is only the profile's default.
 *
 * inferbench asks for `encoding_format: "float"` (the API's default, and what every OpenAI-compatible
 * server returns): the reader reads float arrays and base64 strings alike (client/apis/embeddings-reader.ts).
 */
import { InferbenchError } from '../../errors.js';
import type { ChatMessage } from '../../protocol/chat.js';
import { oneUserTextProblem } from './one-user-text.js';

/** Fields of a chat body that are the workload's own and never sent to embeddings. */
const CHAT_ONLY = new Set(['messages', 'stream', 'stream_options', 'max_completion_tokens']);

/** Why `messages` cannot be an embeddings input (one user message of text); null when they can. */
export function embeddingsPromptProblem(messages: readonly ChatMessage[]): string | null {
  return oneUserTextProblem(messages, 'an embeddings input');
}

function inputText(chat: Readonly<Record<string, unknown>>): string {
  const list = Array.isArray(chat.messages) ? (chat.messages as ChatMessage[]) : [];
  const problem = embeddingsPromptProblem(list);
  if (problem !== null)
    throw new InferbenchError('BAD_PROFILE', `api: embeddings sends text inputs: ${problem}`, {
      hint: 'use a dataset whose entries are one user text (no system, no history, no images), or api: chat',
    });
  return (list[0] as { content: string }).content;
}

function embeddingsFields(chat: Readonly<Record<string, unknown>>, input: string | string[]): Record<string, unknown> {
  const body: Record<string, unknown> = { model: chat.model, input, encoding_format: 'float' };
  for (const [key, value] of Object.entries(chat)) if (!CHAT_ONLY.has(key) && key !== 'model') body[key] = value;
  return body;
}

/** The embeddings body of one prompt: `input` is its text. */
export function embeddingsBody(chat: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return embeddingsFields(chat, inputText(chat));
}

/** The embeddings body of several prompts (`inputs_per_request`): `input` is their texts, in order. */
export function embeddingsBatchBody(chats: readonly Readonly<Record<string, unknown>>[]): Record<string, unknown> {
  const first = chats[0];
  if (first === undefined) throw new InferbenchError('INTERNAL', 'an embeddings batch of no prompts');
  return embeddingsFields(first, chats.map(inputText));
}
