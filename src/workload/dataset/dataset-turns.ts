/**
 * The user turns of a dataset conversation, in order: what a multi-turn session sends as "the next turn of
 * a dataset conversation" (the assistant turns between them are the server's to write).
 */
import type { ChatMessage } from '../../protocol/chat.js';
import type { DatasetEntry } from './dataset-entry.js';

/** The text of every user message of `entry`'s whole conversation, in order (text parts joined). */
export function userTurns(entry: Pick<DatasetEntry, 'messages'>): string[] {
  return entry.messages.filter((m) => m.role === 'user').map(messageText);
}

/** For every user message of `entry`'s conversation, in order: the assistant message answering it (before the next user message), or null. */
export function answersOfUserTurns(entry: Pick<DatasetEntry, 'messages'>): (ChatMessage | null)[] {
  const answers: (ChatMessage | null)[] = [];
  for (const message of entry.messages) {
    if (message.role === 'user') answers.push(null);
    else if (message.role === 'assistant' && answers.length > 0 && answers.at(-1) === null)
      answers[answers.length - 1] = message;
  }
  return answers;
}

/** The system messages that open the conversation (before its first user turn), or none. */
export function openingSystemMessages(entry: Pick<DatasetEntry, 'messages'>): ChatMessage[] {
  const firstUser = entry.messages.findIndex((m) => m.role === 'user');
  const opening = firstUser < 0 ? entry.messages : entry.messages.slice(0, firstUser);
  return opening.filter((m) => m.role === 'system' || m.role === 'developer');
}

function messageText(message: ChatMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { text: string } => typeof part?.text === 'string')
    .map((part) => part.text)
    .join('\n');
}
