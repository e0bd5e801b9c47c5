/**
 * Anthropic's Messages API (POST /v1/messages, anthropic-version 2023-06-01): typed SSE events and whole
 * `message` bodies. Each event's JSON has its name in `type`:
 * - `message_start`: `message.id` and `message.usage` (input_tokens, cache_creation_input_tokens,
 *   cache_read_input_tokens, output_tokens so far);
 * - `content_block_start`: a block at `index`; a `tool_use` block opens a tool call (id, name: generated);
 * - `content_block_delta`: `delta.type` `text_delta` (answer text), `thinking_delta` (reasoning),
 *   `input_json_delta` (tool-call arguments, `partial_json`); `signature_delta` and `citations_delta`
 *   carry no generated text;
 * - `message_delta`: `delta.stop_reason` (the answer ended: finishReason) and `usage` (output_tokens
 *   cumulative, so the last one is the count; input and cache counts when the server repeats them);
 * - `content_block_stop`, `message_stop` (the end: there is no `[DONE]`), `ping`: nothing to read.
 * `event: error` ({type: "error", error: {type, message}}) never reaches here: the handler makes it a
 * stream_error (error-body.ts reads Anthropic's shape).
 *
 * Usage in chat's shape: Anthropic's input_tokens counts only the prompt tokens after the last cache
 * breakpoint, so prompt_tokens = input_tokens + cache_creation_input_tokens + cache_read_input_tokens
 * (every prompt token, as chat's prompt_tokens), with cache_read_input_tokens as
 * prompt_tokens_details.cached_tokens; completion_tokens = output_tokens (thinking included, as
 * chat's completion_tokens includes reasoning).
 */
import type { Usage } from '../../protocol/chat.js';
import { isObject, nonEmptyString, type Json } from '../json-shape.js';
import type { RequestRecord } from '../request-record.js';
import { applyToolCallFragment } from '../tool-call-assembly.js';
import type { ApiReader, TextSlot } from './api-reader.js';

/** What an event or block generated (bit flags, as response-facts.ts). */
const REASONING = 1;
const ANSWER = 2;

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Anthropic's usage (of any event or body) into the record's chat-shaped usage, over what it had. */
function applyUsage(record: RequestRecord, usage: unknown): void {
  if (!isObject(usage)) return;
  const previous = record.usage;
  const input = usage['input_tokens'];
  const output = usage['output_tokens'];
  if (typeof input !== 'number' && typeof output !== 'number') return;
  let prompt = previous?.prompt_tokens ?? 0;
  let cached = previous?.prompt_tokens_details?.cached_tokens ?? 0;
  if (typeof input === 'number') {
    cached = count(usage['cache_read_input_tokens']);
    prompt = input + cached + count(usage['cache_creation_input_tokens']);
  }
  const completion = typeof output === 'number' ? output : (previous?.completion_tokens ?? 0);
  const next: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
  };
  record.usage = next;
}

function addAnswer(record: RequestRecord, text: string): void {
  record.outputText += text;
  if (record.keepContent) record.content += text;
}

/** A content block (a body's, or the one content_block_start opens) at `index`: what it generated. */
function applyBlock(record: RequestRecord, block: unknown, index: number, whole: boolean): number {
  if (!isObject(block)) return 0;
  switch (block['type']) {
    case 'text': {
      const text = block['text'];
      if (!nonEmptyString(text)) return 0;
      addAnswer(record, text);
      return ANSWER;
    }
    case 'thinking': {
      const thinking = block['thinking'];
      if (!nonEmptyString(thinking)) return 0;
      record.reasoningText += thinking;
      return REASONING;
    }
    case 'tool_use': {
      // A stream's block opens with `input: {}` and its arguments follow as input_json_delta; a body's is whole.
      const input = block['input'];
      const args = whole && isObject(input) ? JSON.stringify(input) : '';
      const fragment = { index, id: block['id'], function: { name: block['name'], arguments: args } };
      return applyToolCallFragment(record, fragment, index) ? ANSWER : 0;
    }
    default:
      return 0;
  }
}

function applyDelta(record: RequestRecord, delta: unknown, index: number): number {
  if (!isObject(delta)) return 0;
  switch (delta['type']) {
    case 'text_delta': {
      const text = delta['text'];
      if (!nonEmptyString(text)) return 0;
      addAnswer(record, text);
      return ANSWER;
    }
    case 'thinking_delta': {
      const thinking = delta['thinking'];
      if (!nonEmptyString(thinking)) return 0;
      record.reasoningText += thinking;
      return REASONING;
    }
    case 'input_json_delta': {
      const json = delta['partial_json'];
      if (!nonEmptyString(json)) return 0;
      return applyToolCallFragment(record, { index, function: { arguments: json } }, index) ? ANSWER : 0;
    }
    default:
      return 0;
  }
}

function blockIndex(event: Json): number {
  const index = event['index'];
  return Number.isInteger(index) ? (index as number) : 0;
}

function applyStreamEvent(record: RequestRecord, event: Json, atUs: number): void {
  let generated = 0;
  switch (event['type']) {
    case 'content_block_delta':
      generated = applyDelta(record, event['delta'], blockIndex(event));
      break;
    case 'content_block_start':
      generated = applyBlock(record, event['content_block'], blockIndex(event), false);
      break;
    case 'message_start': {
      const message = event['message'];
      if (!isObject(message)) return;
      const id = message['id'];
      if (record.responseId === null && nonEmptyString(id)) record.responseId = id;
      applyUsage(record, message['usage']);
      return;
    }
    case 'message_delta': {
      const delta = event['delta'];
      if (isObject(delta) && nonEmptyString(delta['stop_reason'])) record.finishReason = delta['stop_reason'];
      applyUsage(record, event['usage']);
      return;
    }
    default:
      // ping, content_block_stop, message_stop: nothing to read.
      return;
  }
  if (generated === 0) return;
  if (generated & ANSWER && Number.isNaN(record.firstOutputUs)) record.firstOutputUs = atUs;
  if (Number.isNaN(record.firstTokenUs)) record.firstTokenUs = atUs;
  record.lastTokenUs = atUs;
  record.tokenChunkTimesUs.push(atUs);
}

/** A whole `message` body received at `atUs`: its content blocks, stop_reason and usage. */
function applyBody(record: RequestRecord, body: Json, atUs: number): void {
  record.firstChunkUs = atUs;
  let generated = 0;
  const content = body['content'];
  if (Array.isArray(content))
    for (let i = 0; i < content.length; i += 1) generated |= applyBlock(record, content[i], i, true);
  if (generated & ANSWER) record.firstOutputUs = atUs;
  if (generated !== 0) {
    record.firstTokenUs = atUs;
    record.lastTokenUs = atUs;
  }
  const id = body['id'];
  if (nonEmptyString(id)) record.responseId = id;
  if (nonEmptyString(body['stop_reason'])) record.finishReason = body['stop_reason'];
  applyUsage(record, body['usage']);
}

/** The text of a `content_block_delta` of text or thinking: where a Messages token event holds its token. */
function messagesTextSlot(event: unknown): TextSlot | null {
  if (!isObject(event) || event['type'] !== 'content_block_delta') return null;
  const delta = event['delta'];
  if (!isObject(delta) || Array.isArray(delta)) return null;
  const field = delta['type'] === 'text_delta' ? 'text' : delta['type'] === 'thinking_delta' ? 'thinking' : null;
  if (field === null) return null;
  const text = delta[field];
  return typeof text === 'string' && text.length > 0 ? { holder: delta, field, text } : null;
}

export const messagesReader: ApiReader = { applyStreamEvent, applyBody, textSlot: messagesTextSlot };
