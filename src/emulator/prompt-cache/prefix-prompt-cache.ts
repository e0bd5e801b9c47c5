/**
 * The prompt cache: requests that share a `prompt_cache_key` (per model) and a prefix of messages reuse
 * the previous request's prefix. Messages are compared from the start (tools and response_format first,
 * since they precede the messages in the prompt); the shared part's tokens, rounded down to whole blocks
 * as real KV caches store them, are reported as `cached_tokens`. Each key remembers its latest request,
 * which is what a growing multi-turn conversation needs; keys are kept in a bounded LRU.
 *
 * A shared prefix shorter than the whole prompt is sized by its share of the serialized characters: the
 * handler gives the prompt's token count, and tokenizing each message again would cost more than it is
 * worth at block granularity.
 */
import type { ChatCompletionRequest } from '../../protocol/chat.js';
import { hashString } from '../../util/rng.js';
import type { PromptCache } from '../hooks.js';

export interface PrefixPromptCacheOptions {
  /** Cache granularity in tokens (default 128). */
  readonly blockTokens?: number;
  /** Most (model, prompt_cache_key) entries kept (default 10,000). */
  readonly maxEntries?: number;
}

interface Entry {
  /** Fingerprint of each prompt part: [tools+format, message 0, message 1, ...]. */
  readonly fingerprints: readonly number[];
}

interface Parts {
  readonly fingerprints: number[];
  /** Serialized length of each part. */
  readonly sizes: number[];
  readonly totalSize: number;
}

function fingerprint(text: string): number {
  // Length folded in: a second, independent check against 32-bit hash collisions.
  return (hashString(text) ^ Math.imul(text.length, 0x9e3779b1)) >>> 0;
}

function partsOf(request: ChatCompletionRequest): Parts {
  const texts = [JSON.stringify([request.tools ?? null, request.response_format ?? null])];
  for (const message of request.messages) texts.push(JSON.stringify(message));
  const sizes = texts.map((t) => t.length);
  return { fingerprints: texts.map(fingerprint), sizes, totalSize: sizes.reduce((a, b) => a + b, 0) };
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
    const parts = partsOf(request);
    const previous = this.#entries.get(mapKey);
    // Re-insert so the Map's order is least- to most-recently used.
    this.#entries.delete(mapKey);
    this.#entries.set(mapKey, { fingerprints: parts.fingerprints });
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    if (previous === undefined) return 0;

    const shared = sharedPrefix(previous.fingerprints, parts.fingerprints);
    // Only the tools/format part matching is no message prefix at all.
    if (shared <= 1) return 0;
    let prefixTokens: number;
    if (shared === parts.fingerprints.length) {
      prefixTokens = promptTokens;
    } else {
      let prefixSize = 0;
      for (let i = 0; i < shared; i++) prefixSize += parts.sizes[i] as number;
      prefixTokens = (promptTokens * prefixSize) / parts.totalSize;
    }
    const cached = Math.floor(prefixTokens / this.#blockTokens) * this.#blockTokens;
    return Math.max(0, Math.min(cached, promptTokens));
  }
}

function sharedPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Builds the emulator's default prompt cache. */
export function createPromptCache(options: PrefixPromptCacheOptions = {}): PrefixPromptCache {
  return new PrefixPromptCache(options);
}
