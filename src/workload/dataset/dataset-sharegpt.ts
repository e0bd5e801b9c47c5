/**
 * The ShareGPT format (ShareGPT_V3_unfiltered_cleaned_split.json, which vLLM's and SGLang's serving
 * benchmarks read): records `{ "conversations": [{ "from": "human" | "gpt" | "system", "value": "..." }] }`.
 * Roles map human -> user, gpt -> assistant, system -> system (the aliases user, assistant, chatgpt, bing and
 * bard that appear in scraped copies too). As a single request, an entry sends its first user turn, after the
 * system turns that precede it; its answer is the first assistant turn after that user turn. A conversation
 * without a user turn is kept as an entry with an empty prompt, which the filters count and drop.
 */
import { InferbenchError } from '../../errors.js';
import type { ChatMessage } from '../../protocol/chat.js';
import type { Tokenizer } from '../../util/tokenizer.js';
import type { DatasetEntry } from './dataset-entry.js';
import { lazyEntry } from './dataset-entry.js';
import type { DatasetRecord } from './dataset-records.js';

const ROLE_OF: Readonly<Record<string, 'system' | 'user' | 'assistant'>> = {
  human: 'user',
  user: 'user',
  gpt: 'assistant',
  assistant: 'assistant',
  chatgpt: 'assistant',
  bing: 'assistant',
  bard: 'assistant',
  system: 'system',
};

const HINT = 'a ShareGPT record is {"conversations": [{"from": "human" | "gpt" | "system", "value": "text"}, ...]}';

/** True for a record shaped like ShareGPT (what format auto detects it by). */
export function isShareGptRecord(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'conversations' in value;
}

/** The conversation of a ShareGPT record, roles mapped; a malformed record is BAD_PROFILE naming its line. */
export function shareGptMessages(record: DatasetRecord, path: string): ChatMessage[] {
  const fail = (what: string): never => {
    throw new InferbenchError('BAD_PROFILE', `${path}:${record.line}: ${what}`, { hint: HINT });
  };
  if (!isShareGptRecord(record.value)) fail('expected a ShareGPT record with a "conversations" array');
  const turns = (record.value as { conversations: unknown }).conversations;
  if (!Array.isArray(turns)) fail('"conversations" is not an array');
  return (turns as unknown[]).map((turn, i) => {
    if (typeof turn !== 'object' || turn === null) return fail(`conversations[${i}] is not an object`);
    const { from, value } = turn as { from?: unknown; value?: unknown };
    const role = typeof from === 'string' ? ROLE_OF[from.toLowerCase()] : undefined;
    if (role === undefined)
      return fail(`conversations[${i}].from is ${JSON.stringify(from)}: expected "human", "gpt" or "system"`);
    if (typeof value !== 'string') return fail(`conversations[${i}].value is not a string`);
    return { role, content: value } as ChatMessage;
  });
}

export function shareGptEntry(record: DatasetRecord, path: string, tokenizer: Tokenizer): DatasetEntry {
  const messages = shareGptMessages(record, path);
  const user = messages.findIndex((m) => m.role === 'user');
  const prompt = user < 0 ? [] : [...messages.slice(0, user).filter((m) => m.role === 'system'), messages[user]!];
  const answer = user < 0 ? undefined : messages.slice(user + 1).find((m) => m.role === 'assistant');
  return lazyEntry(messages, prompt, answer ?? null, record.line, tokenizer);
}
