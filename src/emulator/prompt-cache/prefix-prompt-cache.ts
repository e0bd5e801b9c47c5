/**
 * The prompt cache: requests that share a `prompt_cache_key` (per model) and a prefix of their prompt
 * reuse the previous request's prefix, as a real KV cache does. The prompt is compared as its serialized
 * parts in order (tools and response_format first, since they precede the messages in the prompt, then
 * each message), unit by unit at CHAR_BLOCK granularity through chained block hashes (the way vLLM's
 * prefix cache chains token-block hashes), so a prefix shared inside a message counts too: a long shared
 * document at the start of every user message is reused, not only whole equal messages. The shared
 * part's tokens, rounded down to whole blocks as real KV caches store them, are reported as
 * `cached_tokens`. Each key remembers its latest request, which is what a growing multi-turn
 * conversation needs; keys are kept in an LRU bounded in keys and in blocks held.
 *
 * Text is compared character by character (one unit each). An image is not: its data URL (megabytes of
 * base64) is replaced by a digest of a fixed-size sample of it (imageDigest), hashed in constant time,
 * and the image then takes IMAGE_UNITS_PER_TOKEN units per image token it costs (the emulator's own rule,
 * protocol/image-tokens.ts), so an image weighs in the comparison what it weighs in the prompt.
 *
 * A shared prefix shorter than the whole prompt is sized as its images' tokens plus its share of the
 * text's characters times the text's tokens: the handler gives the prompt's token count, and tokenizing
 * the prompt again would cost more than it is worth at block granularity.
 */
import type { ChatCompletionRequest, ChatMessage } from '../../protocol/chat.js';
import { imagePartTokens } from '../generation/prompt-tokens.js';
import type { PromptCache } from '../hooks.js';

export interface PrefixPromptCacheOptions {
  /** Cache granularity in tokens (default 128). */
  readonly blockTokens?: number;
  /** Most (model, prompt_cache_key) entries kept (default 10,000). */
  readonly maxEntries?: number;
  /** Most CHAR_BLOCK hashes kept over all entries, 4 bytes each (default 8 Mi: 32 MiB). */
  readonly maxBlocks?: number;
}

/** Units per compared block of the serialized prompt (a few dozen tokens at most: finer than blockTokens). */
export const CHAR_BLOCK = 64;
/** Units an image token takes: the characters of a text token, about 4, so an image is cut in blocks as finely as text. */
export const IMAGE_UNITS_PER_TOKEN = 4;
/** Data URLs up to this length are hashed whole; longer ones by a sample (imageDigest). */
const WHOLE_URL_CHARS = 4096;
/** The sample of a longer data URL: its first and last SAMPLE_EDGE characters and SAMPLE_WINDOWS spread windows. */
const SAMPLE_EDGE = 1024;
const SAMPLE_WINDOWS = 64;
const SAMPLE_WINDOW_CHARS = 16;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

interface Entry {
  /** Chained hash of the serialized prompt up to the end of each whole CHAR_BLOCK. */
  readonly blocks: Uint32Array;
  /** Hash and length of the whole serialized prompt, for an exact repeat. */
  readonly whole: number;
  readonly length: number;
  /** Its prompt tokens: no later request can find more of it cached. */
  readonly promptTokens: number;
}

/** An image in the compared prompt: where its units start, how many, and the tokens it costs. */
interface ImageSpan {
  readonly start: number;
  readonly units: number;
  readonly tokens: number;
}

interface Prompt extends Entry {
  /** Serialized length of the tools/response_format part: a match no longer than it is no message prefix. */
  readonly headSize: number;
  readonly images: readonly ImageSpan[];
}

/** A piece of the compared prompt: serialized text, or an image (its digest, then its units). */
type Segment = string | { readonly digest: string; readonly tokens: number };

/** FNV-1a of `text` from `from` to `to`, continuing from `hash`. */
function fnv(hash: number, text: string, from: number, to: number): number {
  let h = hash;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

/**
 * A data URL's stand-in in the compared prompt: the URL itself when short, otherwise its length and a
 * hash of its first and last kilobyte and of windows spread over it. Constant time whatever the size: two
 * images told apart only by bytes that no sample reaches would be taken for one, which an encoded image
 * (whose compressed bytes differ from the header on) does not do.
 */
export function imageDigest(url: string): string {
  const n = url.length;
  if (n <= WHOLE_URL_CHARS) return url;
  let hash = fnv(FNV_OFFSET, url, 0, SAMPLE_EDGE);
  hash = fnv(hash, url, n - SAMPLE_EDGE, n);
  const stride = Math.floor((n - SAMPLE_WINDOW_CHARS) / (SAMPLE_WINDOWS - 1));
  for (let w = 0; w < SAMPLE_WINDOWS; w++) hash = fnv(hash, url, w * stride, w * stride + SAMPLE_WINDOW_CHARS);
  return `image:${n}:${(hash >>> 0).toString(36)}`;
}

/** A message's segments: as JSON when its content is a string, else its other fields, then each part. */
function pushMessage(message: ChatMessage, out: Segment[]): void {
  const content = message.content;
  if (!Array.isArray(content)) {
    out.push(JSON.stringify(message));
    return;
  }
  out.push(JSON.stringify({ ...message, content: [] }));
  for (const part of content as unknown[]) {
    const imageUrl = (part as { type?: unknown; image_url?: { url?: unknown } } | null)?.image_url;
    if ((part as { type?: unknown } | null)?.type !== 'image_url' || typeof imageUrl?.url !== 'string') {
      out.push(JSON.stringify(part));
      continue;
    }
    // The part without its data (its detail still compared), then the image.
    out.push(JSON.stringify({ type: 'image_url', image_url: { ...imageUrl, url: null } }));
    out.push({ digest: imageDigest(imageUrl.url), tokens: imagePartTokens(imageUrl) });
  }
}

function unitsOf(segment: Segment): number {
  return typeof segment === 'string' ? segment.length : segment.tokens * IMAGE_UNITS_PER_TOKEN;
}

/** FNV-1a over the segments in order, its state kept at every CHAR_BLOCK boundary: one pass, no copies. */
function promptOf(request: ChatCompletionRequest): Prompt {
  const segments: Segment[] = [JSON.stringify([request.tools ?? null, request.response_format ?? null])];
  for (const message of request.messages) pushMessage(message, segments);
  let length = 0;
  for (const segment of segments) length += unitsOf(segment);
  const blocks = new Uint32Array(Math.floor(length / CHAR_BLOCK));
  const images: ImageSpan[] = [];
  let hash = FNV_OFFSET;
  let at = 0;
  for (const segment of segments) {
    const units = unitsOf(segment);
    let text: string | null = null;
    if (typeof segment === 'string') text = segment;
    else {
      // An image: its digest decides every block hash from here on; its units then advance the chain.
      hash = fnv(hash, segment.digest, 0, segment.digest.length);
      images.push({ start: at, units, tokens: segment.tokens });
    }
    for (let i = 0; i < units; i++) {
      hash = Math.imul(hash ^ (text === null ? 0x2a : text.charCodeAt(i)), FNV_PRIME);
      at++;
      if (at % CHAR_BLOCK === 0) blocks[at / CHAR_BLOCK - 1] = hash >>> 0;
    }
  }
  // Length folded in: a second, independent check against 32-bit hash collisions.
  const whole = ((hash >>> 0) ^ Math.imul(length, 0x9e3779b1)) >>> 0;
  return { blocks, whole, length, promptTokens: 0, headSize: (segments[0] as string).length, images };
}

/** Tokens of the first `sharedUnits` units of `prompt`: its images' by their units, the text's by its share. */
function prefixTokensOf(prompt: Prompt, sharedUnits: number, promptTokens: number): number {
  let imageUnits = 0;
  let sharedImageUnits = 0;
  let imageTokens = 0;
  for (const image of prompt.images) {
    imageUnits += image.units;
    imageTokens += image.tokens;
    if (image.start < sharedUnits) sharedImageUnits += Math.min(image.units, sharedUnits - image.start);
  }
  const textUnits = prompt.length - imageUnits;
  const textTokens = Math.max(0, promptTokens - imageTokens);
  const sharedText = textUnits > 0 ? (textTokens * (sharedUnits - sharedImageUnits)) / textUnits : 0;
  return sharedImageUnits / IMAGE_UNITS_PER_TOKEN + sharedText;
}

export class PrefixPromptCache implements PromptCache {
  readonly #blockTokens: number;
  readonly #maxEntries: number;
  readonly #maxBlocks: number;
  readonly #entries = new Map<string, Entry>();
  #blocksHeld = 0;

  constructor(options: PrefixPromptCacheOptions = {}) {
    this.#blockTokens = options.blockTokens ?? 128;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#maxBlocks = options.maxBlocks ?? 8 * 1024 * 1024;
  }

  /** Entries held (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }

  /** Block hashes held over all entries (4 bytes each). */
  get blocksHeld(): number {
    return this.#blocksHeld;
  }

  cachedTokens(request: ChatCompletionRequest, promptTokens: number, modelId: string): number {
    const key = request.prompt_cache_key;
    if (typeof key !== 'string' || key.length === 0) return 0;
    const mapKey = `${modelId}\u0000${key}`;
    const prompt = promptOf(request);
    const previous = this.#entries.get(mapKey);
    this.#remember(mapKey, { blocks: prompt.blocks, whole: prompt.whole, length: prompt.length, promptTokens });
    if (previous === undefined) return 0;

    let prefixTokens: number;
    if (previous.whole === prompt.whole && previous.length === prompt.length) {
      prefixTokens = promptTokens;
    } else {
      const sharedUnits = sharedBlocks(previous.blocks, prompt.blocks) * CHAR_BLOCK;
      // Only the tools/format part matching is no message prefix at all.
      if (sharedUnits <= prompt.headSize) return 0;
      // The text's share of characters is an estimate: never more than the previous prompt held.
      prefixTokens = Math.min(prefixTokensOf(prompt, sharedUnits, promptTokens), previous.promptTokens);
    }
    const cached = Math.floor(prefixTokens / this.#blockTokens) * this.#blockTokens;
    return Math.max(0, Math.min(cached, promptTokens));
  }

  /** Stores `entry` as the most recently used, then drops the least recently used while over a bound. */
  #remember(mapKey: string, entry: Entry): void {
    const replaced = this.#entries.get(mapKey);
    if (replaced !== undefined) {
      this.#entries.delete(mapKey);
      this.#blocksHeld -= replaced.blocks.length;
    }
    // The Map's order is least- to most-recently used.
    this.#entries.set(mapKey, entry);
    this.#blocksHeld += entry.blocks.length;
    // The newest entry stays even alone over the budget (one prompt is bounded by the body size limit).
    while (this.#entries.size > 1 && (this.#entries.size > this.#maxEntries || this.#blocksHeld > this.#maxBlocks)) {
      const [oldestKey, oldest] = this.#entries.entries().next().value as [string, Entry];
      this.#entries.delete(oldestKey);
      this.#blocksHeld -= oldest.blocks.length;
    }
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
