/**
 * The prompt cache: requests that share a `prompt_cache_key` (per model) and a prefix of their prompt
 * reuse the previous request's prefix, as a real KV cache does. The prompt is compared as its serialized
 * parts in order (tools and response_format first, since they precede the messages in the prompt, then
 * each message), character by character at CHAR_BLOCK granularity through chained block hashes (the way
 * vLLM's prefix cache chains token-block hashes), so a prefix shared inside a message counts too: a long
 * shared document at the start of every user message is reused, not only whole equal messages. The shared
 * part's tokens, rounded down to whole blocks as real KV caches store them, are reported as
 * `cached_tokens`. Each key remembers its latest request, which is what a growing multi-turn
 * conversation needs; keys are kept in a bounded LRU.
 *
 * A shared prefix shorter than the whole prompt is sized by its share of the serialized characters: the
 * handler gives the prompt's token count, and tokenizing the prompt again would cost more than it is
 * worth at block granularity.
 */
import type { ChatCompletionRequest } from '../../protocol/chat.js';
import type { PromptCache } from '../hooks.js';

export interface PrefixPromptCacheOptions {
  /** Cache granularity in tokens (default 128). */
  readonly blockTokens?: number;
  /** Most (model, prompt_cache_key) entries kept (default 10,000). */
  readonly maxEntries?: number;
}

/** Characters per compared block of the serialized prompt (a few dozen tokens at most: finer than blockTokens). */
export const CHAR_BLOCK = 64;

interface Entry {
  /** Chained hash of the serialized prompt up to the end of each whole CHAR_BLOCK. */
  readonly blocks: Uint32Array;
  /** Hash and length of the whole serialized prompt, for an exact repeat. */
  readonly whole: number;
  readonly length: number;
}

interface Prompt extends Entry {
  /** Serialized length of the tools/response_format part: a match no longer than it is no message prefix. */
  readonly headSize: number;
}

/** FNV-1a over the parts in order, its state kept at every CHAR_BLOCK boundary: one pass, no copies. */
function promptOf(request: ChatCompletionRequest): Prompt {
  const texts = [JSON.stringify([request.tools ?? null, request.response_format ?? null])];
  for (const message of request.messages) texts.push(JSON.stringify(message));
  let length = 0;
  for (const text of texts) length += text.length;
  const blocks = new Uint32Array(Math.floor(length / CHAR_BLOCK));
  let hash = 0x811c9dc5;
  let at = 0;
  for (const text of texts) {
    for (let i = 0; i < text.length; i++) {
      hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
      at++;
      if (at % CHAR_BLOCK === 0) blocks[at / CHAR_BLOCK - 1] = hash >>> 0;
    }
  }
  // Length folded in: a second, independent check against 32-bit hash collisions.
  const whole = ((hash >>> 0) ^ Math.imul(length, 0x9e3779b1)) >>> 0;
  return { blocks, whole, length, headSize: (texts[0] as string).length };
}

export class PrefixPromptCache implements PromptCache {
  readonly #blockTokens: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, Entry>();

  constructor(options: PrefixPromptCacheOptions = {}) {
    this.#blockTokens = options.blockTokens ?? 128;
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  /** Entries held (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }

  cachedTokens(request: ChatCompletionRequest, promptTokens: number, modelId: string): number {
    const key = request.prompt_cache_key;
    if (typeof key !== 'string' || key.length === 0) return 0;
    const mapKey = `${modelId}\u0000${key}`;
    const prompt = promptOf(request);
    const previous = this.#entries.get(mapKey);
    // Re-insert so the Map's order is least- to most-recently used.
    this.#entries.delete(mapKey);
    this.#entries.set(mapKey, { blocks: prompt.blocks, whole: prompt.whole, length: prompt.length });
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    if (previous === undefined) return 0;

    let prefixTokens: number;
    if (previous.whole === prompt.whole && previous.length === prompt.length) {
      prefixTokens = promptTokens;
    } else {
      const sharedChars = sharedBlocks(previous.blocks, prompt.blocks) * CHAR_BLOCK;
      // Only the tools/format part matching is no message prefix at all.
      if (sharedChars <= prompt.headSize) return 0;
      prefixTokens = (promptTokens * sharedChars) / prompt.length;
    }
    const cached = Math.floor(prefixTokens / this.#blockTokens) * this.#blockTokens;
    return Math.max(0, Math.min(cached, promptTokens));
  }
}

/** Leading blocks whose chained hashes are equal (a chained hash equal means every block before it is). */
function sharedBlocks(a: Uint32Array, b: Uint32Array): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Builds the emulator's default prompt cache. */
export function createPromptCache(options: PrefixPromptCacheOptions = {}): PrefixPromptCache {
  return new PrefixPromptCache(options);
}
