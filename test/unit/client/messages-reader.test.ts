/**
 * The Messages reader on events a live stream does not always show: usage merged across message_start and
 * message_delta (a delta that repeats the input counts replaces them; one with output_tokens only keeps
 * them), a text block that opens with text, and the chunk parser's template on text and thinking deltas
 * (a repeated delta shape is not JSON.parsed, and reads the same as when it is).
 */
import { describe, expect, it } from 'vitest';
import { messagesReader } from '../../../src/client/apis/messages-reader.js';
import { StreamChunkParser } from '../../../src/client/chunk-template.js';
import type { Json } from '../../../src/client/json-shape.js';
import { createRequestRecord } from '../../../src/client/request-record.js';

const apply = (record: ReturnType<typeof createRequestRecord>, event: unknown, atUs: number): void =>
  messagesReader.applyStreamEvent(record, event as Json, atUs);

describe('messagesReader', () => {
  it('takes usage into chat’s shape, cache tokens in prompt_tokens, the last output count', () => {
    const record = createRequestRecord(0, 0, 0);
    apply(
      record,
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          usage: { input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 1 },
        },
      },
      1,
    );
    expect(record.usage).toEqual({
      prompt_tokens: 115,
      completion_tokens: 1,
      total_tokens: 116,
      prompt_tokens_details: { cached_tokens: 100 },
    });
    apply(record, { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } }, 2);
    expect(record.usage).toEqual({
      prompt_tokens: 115,
      completion_tokens: 7,
      total_tokens: 122,
      prompt_tokens_details: { cached_tokens: 100 },
    });
    expect(record.finishReason).toBe('end_turn');
    apply(
      record,
      { type: 'message_delta', delta: {}, usage: { input_tokens: 12, cache_read_input_tokens: 0, output_tokens: 9 } },
      3,
    );
    expect(record.usage).toMatchObject({
      prompt_tokens: 12,
      completion_tokens: 9,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    expect(record.responseId).toBe('msg_1');
    // No token in any of them.
    expect(Number.isNaN(record.firstTokenUs)).toBe(true);
  });

  it('counts a text block that opens with text as the first token', () => {
    const record = createRequestRecord(0, 0, 0);
    apply(record, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'Hi' } }, 5);
    apply(record, { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }, 6);
    expect(record.outputText).toBe('Hi');
    expect(record.firstTokenUs).toBe(5);
    expect(record.firstOutputUs).toBe(5);
    expect(record.tokenChunkTimesUs).toEqual([5]);
  });

  it('lets the chunk parser template text and thinking deltas, reading them as JSON.parse would', () => {
    const parser = new StreamChunkParser(messagesReader.textSlot);
    const record = createRequestRecord(0, 0, 0);
    const delta = (type: string, field: string, text: string) =>
      JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type, [field]: text } });
    const first = parser.parse(delta('thinking_delta', 'thinking', ' a'));
    apply(record, first, 1);
    const second = parser.parse(delta('thinking_delta', 'thinking', ' b'));
    // The template: the same object, its text replaced.
    expect(second).toBe(first);
    apply(record, second, 2);
    const text = parser.parse(delta('text_delta', 'text', ' x'));
    apply(record, text, 3);
    const again = parser.parse(delta('text_delta', 'text', ' y'));
    expect(again).toBe(text);
    expect(again).toEqual(JSON.parse(delta('text_delta', 'text', ' y')));
    apply(record, again, 4);
    expect(record.reasoningText).toBe(' a b');
    expect(record.outputText).toBe(' x y');
    expect(record.firstTokenUs).toBe(1);
    expect(record.firstOutputUs).toBe(3);
    expect(record.tokenChunkTimesUs).toEqual([1, 2, 3, 4]);
  });
});
