/**
 * One entry of a dataset, whatever its file format: the whole conversation (roles mapped to the API's),
 * the messages a single request sends, and the token counts the filters and max_completion_tokens use,
 * counted once, when the workload is built and only for the entries it examines (lazyEntry).
 */
import type { ChatMessage } from '../../protocol/chat.js';
import type { Tokenizer } from '../../util/tokenizer.js';

export interface DatasetEntry {
  /** The whole conversation as the file holds it, roles mapped (ShareGPT human -> user, gpt -> assistant). */
  readonly messages: readonly ChatMessage[];
  /** What one request sends: empty when the entry has no user turn (it is then filtered out). */
  readonly prompt: readonly ChatMessage[];
  /** Tokens of every message of `prompt` (text only: a server's chat template adds a few per message). */
  readonly tokens: number;
  /** Tokens of the entry's answer (its assistant turn after the prompt), or null when it has none. */
  readonly answerTokens: number | null;
  /** 1-based line of the file the entry starts on. */
  readonly line: number;
}

/**
 * An entry whose token counts are computed on first read and kept: a filter that stops at
 * prompt.dataset.limit never tokenizes the rest of a large file.
 */
export function lazyEntry(
  messages: readonly ChatMessage[],
  prompt: readonly ChatMessage[],
  answer: ChatMessage | null,
  line: number,
  tokenizer: Tokenizer,
): DatasetEntry {
  let tokens: number | undefined;
  let answerTokens: number | null | undefined;
  return {
    messages,
    prompt,
    line,
    get tokens(): number {
      if (tokens === undefined) tokens = messagesTokens(prompt, tokenizer);
      return tokens;
    },
    get answerTokens(): number | null {
      if (answerTokens === undefined) answerTokens = answer === null ? null : messageTokens(answer, tokenizer);
      return answerTokens;
    },
  };
}

/** Tokens of a message's text (string content or text parts), in `tokenizer`. */
export function messageTokens(message: ChatMessage, tokenizer: Tokenizer): number {
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

export function messagesTokens(messages: readonly ChatMessage[], tokenizer: Tokenizer): number {
  let tokens = 0;
  for (const message of messages) tokens += messageTokens(message, tokenizer);
  return tokens;
}
