/**
 * Prompts from a JSONL file: each line is a `messages` array, or an object whose `field` holds the prompt
 * text (sent as one user message) or a messages array. Read and token-counted once when the workload is
 * built (with the workload's tokenizer: the profile's target.tokenizer or o200k_base), so requests never
 * call the tokenizer.
 */
import { readFileSync } from 'node:fs';
import { InferbenchError } from '../errors.js';
import type { ChatMessage } from '../protocol/chat.js';
import { o200kTokenizer } from '../util/tokenizer.js';
import type { Tokenizer } from '../util/tokenizer.js';

export interface DatasetEntry {
  readonly messages: readonly ChatMessage[];
  /** Tokens of every message's text, counted by the workload's tokenizer. */
  readonly tokens: number;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** Loads and checks a dataset; a bad line is a BAD_PROFILE error naming the file and line. */
export function loadDataset(path: string, field: string, tokenizer: Tokenizer = o200kTokenizer()): DatasetEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InferbenchError(
      'BAD_PROFILE',
      `cannot read dataset ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      {
        cause: error,
        hint: 'prompt.dataset.path is relative to the profile file',
      },
    );
  }
  const entries: DatasetEntry[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const fail = (what: string): never => {
      throw new InferbenchError('BAD_PROFILE', `${path}:${i + 1}: ${what}`, {
        hint: `each line must be a JSON messages array, or an object whose "${field}" is the prompt text or a messages array`,
      });
    };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      fail('not valid JSON');
    }
    let messages: unknown = value;
    if (!Array.isArray(value)) {
      if (typeof value !== 'object' || value === null) fail('expected a JSON array or object');
      messages = (value as Record<string, unknown>)[field];
      if (typeof messages === 'string') messages = [{ role: 'user', content: messages }];
      else if (!Array.isArray(messages)) fail(`no "${field}" field holding text or messages`);
    }
    const list = messages as unknown[];
    if (list.length === 0) fail('empty messages');
    let tokens = 0;
    for (const message of list) {
      if (typeof message !== 'object' || message === null || !ROLES.has(String((message as { role?: unknown }).role)))
        fail('a message needs a role (system, user, assistant, ...)');
      tokens += messageTokens(message as ChatMessage, tokenizer);
    }
    entries.push({ messages: list as ChatMessage[], tokens });
  });
  if (entries.length === 0)
    throw new InferbenchError('BAD_PROFILE', `dataset ${path} has no prompts`, { hint: 'one JSON value per line' });
  return entries;
}

/** Tokens of a message's text (string content or text parts), in `tokenizer`. */
export function messageTokens(message: ChatMessage, tokenizer: Tokenizer = o200kTokenizer()): number {
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return tokenizer.count(content);
  if (Array.isArray(content)) {
    let tokens = 0;
    for (const part of content)
      if (part && typeof part === 'object' && typeof part.text === 'string') tokens += tokenizer.count(part.text);
    return tokens;
  }
  return 0;
}
