/**
 * The openai dataset format: each record is a `messages` array, or an object whose `field` holds the prompt
 * text (sent as one user message) or a messages array. The whole array is the prompt; when the answer length
 * comes from the dataset, a final assistant message is the entry's answer instead (not sent).
 */
import { InferbenchError } from '../../errors.js';
import type { ChatMessage } from '../../protocol/chat.js';
import type { Tokenizer } from '../../util/tokenizer.js';
import type { DatasetEntry } from './dataset-entry.js';
import { lazyEntry } from './dataset-entry.js';
import type { DatasetRecord } from './dataset-records.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

export function openaiEntry(
  record: DatasetRecord,
  path: string,
  field: string,
  answerFromDataset: boolean,
  tokenizer: Tokenizer,
): DatasetEntry {
  const fail = (what: string): never => {
    throw new InferbenchError('BAD_PROFILE', `${path}:${record.line}: ${what}`, {
      hint: `each record must be a JSON messages array, or an object whose "${field}" is the prompt text or a messages array (or set prompt.dataset.format)`,
    });
  };
  const value = record.value;
  let messages: unknown = value;
  if (!Array.isArray(value)) {
    if (typeof value !== 'object' || value === null) fail('expected a JSON array or object');
    messages = (value as Record<string, unknown>)[field];
    if (typeof messages === 'string') messages = [{ role: 'user', content: messages }];
    else if (!Array.isArray(messages)) fail(`no "${field}" field holding text or messages`);
  }
  const list = messages as ChatMessage[];
  if (list.length === 0) fail('empty messages');
  for (const message of list)
    if (typeof message !== 'object' || message === null || !ROLES.has(String((message as { role?: unknown }).role)))
      fail('a message needs a role (system, user, assistant, ...)');
  const last = list[list.length - 1]!;
  const answered = answerFromDataset && last.role === 'assistant' && list.length > 1;
  const prompt = answered ? list.slice(0, -1) : list;
  return lazyEntry(list, prompt, answered ? last : null, record.line, tokenizer);
}
