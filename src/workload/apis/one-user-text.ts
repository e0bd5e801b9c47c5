/**
 * The prompt rule of the APIs that send one text (completions' `prompt`, an embeddings `input`): the
 * workload's messages must be a single user message of text.
 */
import type { ChatMessage } from '../../protocol/chat.js';

/** Why `messages` cannot be `what` ("a completions prompt"), one user message of text; null when they can. */
export function oneUserTextProblem(messages: readonly ChatMessage[], what: string): string | null {
  if (messages.length !== 1) return `${what} is one text, but this prompt has ${messages.length} messages`;
  const message = messages[0] as ChatMessage;
  if (message.role !== 'user') return `${what} is the user's text, but this message's role is ${message.role}`;
  if (typeof message.content !== 'string') return `${what} is text, but this message has content parts`;
  return null;
}
