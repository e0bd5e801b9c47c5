/**
 * Parses the JSON data payloads of one stream, skipping JSON.parse for the commonest chunk: one that is
 * byte for byte the previous token chunk except inside the one text string of a token (chat: the delta's
 * content, reasoning or reasoning_content, chatTextSlot below; another API says where its text lies with
 * the TextSlotFinder of its reader, apis/). Such a chunk parses to the previous one with that string changed, so the previous
 * parse is reused with the new text; every other chunk (role, finish_reason, usage, time_info, errors,
 * tool calls, anything else) goes through JSON.parse in full. JSON.parse was most of the client's cost per
 * event; the check is two string comparisons and a scan of the token's text.
 *
 * Why it is exact: a template is made from a parsed chunk and proved with a probe. The text string is
 * replaced by a marker that occurs nowhere else in the payload and the result parsed again; if the delta's
 * field then equals the marker, the span between the template's prefix and suffix is exactly that one JSON
 * string token, and nothing else in the payload depends on it (duplicate keys or a lookalike elsewhere
 * make the probe fail). A later payload of the same prefix and suffix whose middle holds no quote,
 * backslash or control character is that same token with another value: JSON.parse would give the
 * template with the new text, which is what parse() returns.
 */
import type { TextSlot, TextSlotFinder } from './apis/api-reader.js';
import { isObject, type Json } from './json-shape.js';

const noSlot: TextSlotFinder = () => null;

/** The delta fields of a chat chunk that carry a token's text, in the order applyStreamChunk reads them. */
const TEXT_FIELDS = ['content', 'reasoning', 'reasoning_content'] as const;

/** Occurs in no ordinary payload; a payload that holds it gets no template. */
const PROBE = '\u2603inferbench-probe\u2603';
/** A token's text is short; longer text (a whole answer in one event) is left to JSON.parse, never scanned twice. */
const MAX_TEXT_CHARS = 1024;
/** Templates replaced without ever matching: past this the stream's chunks do not repeat (a per-chunk nonce). */
const MAX_FUTILE_TEMPLATES = 3;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const FIRST_PRINTABLE = 0x20;

/** True when `text` is its own JSON string body: no quote, backslash or control character. */
function isPlainJsonText(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === QUOTE || code === BACKSLASH || code < FIRST_PRINTABLE) return false;
  }
  return true;
}

/**
 * Chat's text slot (apis/api-reader.ts): the single choice's delta and its one non-empty text field; null
 * when the chunk is not that shape.
 */
export function chatTextSlot(chunk: unknown): TextSlot | null {
  if (!isObject(chunk)) return null;
  const choices = chunk['choices'];
  if (!Array.isArray(choices) || choices.length !== 1) return null;
  const choice: unknown = choices[0];
  if (!isObject(choice)) return null;
  const delta = choice['delta'];
  if (!isObject(delta) || Array.isArray(delta)) return null;
  let found: TextSlot | null = null;
  for (const field of TEXT_FIELDS) {
    const text = delta[field];
    if (typeof text !== 'string' || text.length === 0) continue;
    if (found !== null) return null;
    found = { holder: delta, field, text };
  }
  return found;
}

/** One stream's payload parser (one per attempt: templates never cross responses). */
export class StreamChunkParser {
  /** Where this API's events hold a token's text (chat's by default). */
  readonly #findSlot: TextSlotFinder;
  #prefix = '';
  #suffix = '';
  /** The last parse that proved a template; its delta's text field is rewritten on each match. */
  #template: Json | null = null;
  #delta: Json | null = null;
  #field = 'content';
  #matched = false;
  #futile = 0;

  /** `findSlot` null: no templates, every payload is JSON.parsed. */
  constructor(findSlot: TextSlotFinder | null = chatTextSlot) {
    this.#findSlot = findSlot ?? noSlot;
  }

  /** The payload as JSON.parse would give it; throws what JSON.parse throws. Reuses its result object. */
  parse(data: string): unknown {
    const template = this.#template;
    if (template !== null) {
      const text = this.#middle(data);
      if (text !== null) {
        (this.#delta as Json)[this.#field] = text;
        this.#matched = true;
        return template;
      }
    }
    const chunk: unknown = JSON.parse(data);
    if (this.#futile < MAX_FUTILE_TEMPLATES) this.#tryTemplate(data, chunk);
    return chunk;
  }

  /** The text between the template's prefix and suffix, when `data` is the template with other plain text. */
  #middle(data: string): string | null {
    const prefix = this.#prefix;
    const suffix = this.#suffix;
    const end = data.length - suffix.length;
    if (end < prefix.length || end - prefix.length > MAX_TEXT_CHARS) return null;
    // slice + === compares natively; String.prototype.startsWith is much slower in V8.
    if (data.slice(0, prefix.length) !== prefix || !data.endsWith(suffix)) return null;
    const text = data.slice(prefix.length, end);
    return isPlainJsonText(text) ? text : null;
  }

  /** Makes `chunk` (parsed from `data`) the template when a probe proves where its text lies. */
  #tryTemplate(data: string, chunk: unknown): void {
    const findSlot = this.#findSlot;
    const sole = findSlot(chunk);
    if (sole === null || sole.text.length > MAX_TEXT_CHARS || !isPlainJsonText(sole.text) || data.includes(PROBE)) {
      return;
    }
    const needle = `"${sole.field}":"${sole.text}"`;
    const at = data.lastIndexOf(needle);
    if (at < 0) return;
    const start = at + sole.field.length + 4;
    const end = start + sole.text.length;
    const prefix = data.slice(0, start);
    const suffix = data.slice(end);
    let probed: unknown;
    try {
      probed = JSON.parse(prefix + PROBE + suffix);
    } catch {
      return;
    }
    const probe = findSlot(probed);
    if (probe === null || probe.field !== sole.field || probe.text !== PROBE) return;
    if (this.#template !== null && !this.#matched) this.#futile += 1;
    this.#template = chunk as Json;
    this.#delta = sole.holder;
    this.#field = sole.field;
    this.#prefix = prefix;
    this.#suffix = suffix;
    this.#matched = false;
  }
}
