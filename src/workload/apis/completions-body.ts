/**
 * The body of POST /v1/completions, from the chat body the workload built: the user message's text is
 * the `prompt` (token-exact as the workload made it: no chat template, no roles around it), and
 * `max_completion_tokens` becomes `max_tokens`. Every other field is sent as the profile set it: the
 * fields completions cannot carry (tools, response_format, reasoning_effort, chat's logprobs...) are
 * refused by the profile (profile/sections/api.ts), so none reaches here.
 */
import { InferbenchError } from '../../errors.js';
import type { ChatMessage } from '../../protocol/chat.js';

/** The prompt of a chat body that is exactly one user message of text; null for anything else. */
function promptText(messages: unknown): string | null {
  if (!Array.isArray(messages) || messages.length !== 1) return null;
  const message = messages[0] as ChatMessage;
  return message.role === 'user' && typeof message.content === 'string' ? message.content : null;
}

/** The completions body of `chat` (a new object: the chat body is not changed). */
export function completionsBody(chat: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { messages, max_completion_tokens: maxTokens, ...rest } = chat;
  const prompt = promptText(messages);
  if (prompt === null)
    throw new InferbenchError(
      'BAD_PROFILE',
      'api: completions sends one text as its prompt, but this request has several messages, roles other than user, or parts other than text',
      { hint: 'use a dataset whose entries are one user text (no system, no history, no images), or api: chat' },
    );
  const body: Record<string, unknown> = { ...rest, prompt };
  if (maxTokens !== undefined) body.max_tokens = maxTokens;
  return body;
}
