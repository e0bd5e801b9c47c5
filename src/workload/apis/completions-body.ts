/**
 * The body of POST /v1/completions, from the chat body the workload built: the user message's text is
 * the `prompt` (token-exact as the workload made it: no chat template, no roles around it), and
 * `max_completion_tokens` becomes `max_tokens`. Every other field is sent as the profile set it: the
 * fields completions cannot carry (tools, response_format, reasoning_effort, chat's logprobs...) are
 * refused by the profile (profile/sections/api.ts), so none reaches here. A dataset entry that is not one
 * user text is refused when the workload is built (completionsPromptProblem, dataset/dataset-source.ts).
 */
import { InferbenchError } from '../../errors.js';
import type { ChatMessage } from '../../protocol/chat.js';
import { oneUserTextProblem } from './one-user-text.js';

/** Why `messages` cannot be a completions prompt (one user message of text); null when they can. */
export function completionsPromptProblem(messages: readonly ChatMessage[]): string | null {
  return oneUserTextProblem(messages, 'a completions prompt');
}

/** The completions body of `chat` (a new object: the chat body is not changed). */
export function completionsBody(chat: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { messages, max_completion_tokens: maxTokens, ...rest } = chat;
  const list = Array.isArray(messages) ? (messages as ChatMessage[]) : [];
  const problem = completionsPromptProblem(list);
  if (problem !== null)
    throw new InferbenchError('BAD_PROFILE', `api: completions sends one text as its prompt: ${problem}`, {
      hint: 'use a dataset whose entries are one user text (no system, no history, no images), or api: chat',
    });
  const body: Record<string, unknown> = { ...rest, prompt: (list[0] as { content: string }).content };
  if (maxTokens !== undefined) body.max_tokens = maxTokens;
  return body;
}
