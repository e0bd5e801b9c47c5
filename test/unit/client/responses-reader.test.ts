/**
 * The Responses reader on events and bodies the known-timing server does not send: how an answer ended
 * (no end event leaves finishReason null, so the handler calls the stream truncated; an incomplete for
 * content_filter), a call's arguments sent only in function_call_arguments.done, usage without details, a body with reasoning content and a function call, and which
 * events streamError names.
 */
import { describe, expect, it } from 'vitest';
import { responsesReader } from '../../../src/client/apis/responses-reader.js';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';

const record = (): RequestRecord => {
  const r = createRequestRecord(0, 0, 0);
  r.keepContent = true;
  return r;
};
const delta = (type: string, text: string) => ({ type, sequence_number: 1, delta: text });

describe('responsesReader', () => {
  it('leaves finishReason null until an end event, and reads an incomplete for content_filter', () => {
    const r = record();
    responsesReader.applyStreamEvent(
      r,
      { type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } },
      1,
    );
    responsesReader.applyStreamEvent(r, delta('response.output_text.delta', 'Hi'), 2);
    responsesReader.applyStreamEvent(r, delta('response.output_text.delta', ''), 3);
    expect(r.finishReason).toBeNull();
    expect(r.responseId).toBe('resp_1');
    expect(r.tokenChunkTimesUs).toEqual([2]);
    expect(r.content).toBe('Hi');
    responsesReader.applyStreamEvent(
      r,
      {
        type: 'response.incomplete',
        response: {
          status: 'incomplete',
          incomplete_details: { reason: 'content_filter' },
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      },
      4,
    );
    expect(r.finishReason).toBe('content_filter');
    expect(r.usage).toEqual({ prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 });
  });

  it('takes a call whose arguments were not streamed from function_call_arguments.done, once', () => {
    const r = record();
    const item = { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '' };
    responsesReader.applyStreamEvent(r, { type: 'response.output_item.added', output_index: 0, item }, 1);
    const done = { type: 'response.function_call_arguments.done', output_index: 0, name: 'f', arguments: '{"a":1}' };
    responsesReader.applyStreamEvent(r, done, 2);
    expect(r.toolCalls).toEqual([{ id: 'call_1', name: 'f', arguments: '{"a":1}' }]);
    expect(r.tokenChunkTimesUs).toEqual([1, 2]);
    // Streamed arguments are not doubled by the done event that repeats them.
    const streamed = record();
    responsesReader.applyStreamEvent(streamed, { type: 'response.output_item.added', output_index: 0, item }, 1);
    responsesReader.applyStreamEvent(
      streamed,
      { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{"a":1}' },
      2,
    );
    responsesReader.applyStreamEvent(streamed, done, 3);
    expect(streamed.toolCalls?.[0]?.arguments).toBe('{"a":1}');
    expect(streamed.outputText).toBe('{"a":1}');
    expect(streamed.tokenChunkTimesUs).toEqual([1, 2]);
  });

  it('reads a whole body: reasoning, answer text and a function call', () => {
    const r = record();
    responsesReader.applyBody(
      r,
      {
        id: 'resp_2',
        status: 'completed',
        error: null,
        output: [
          {
            type: 'reasoning',
            summary: [{ type: 'summary_text', text: 'Think.' }],
            content: [{ type: 'reasoning_text', text: ' More.' }],
          },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Calling.', annotations: [] }] },
          { type: 'function_call', call_id: 'call_9', name: 'f', arguments: '{"a":1}' },
        ],
        usage: { input_tokens: 3, output_tokens: 9, output_tokens_details: { reasoning_tokens: 4 }, total_tokens: 12 },
      },
      50,
    );
    expect(r.reasoningText).toBe('Think. More.');
    expect(r.content).toBe('Calling.');
    expect(r.toolCalls).toEqual([{ id: 'call_9', name: 'f', arguments: '{"a":1}' }]);
    expect(r.finishReason).toBe('tool_calls');
    expect([r.firstChunkUs, r.firstTokenUs, r.firstOutputUs, r.lastTokenUs]).toEqual([50, 50, 50, 50]);
    expect(r.usage?.completion_tokens_details).toEqual({ reasoning_tokens: 4 });
  });

  it('names response.failed and an error event as stream errors, nothing else', () => {
    const streamError = responsesReader.streamError!;
    expect(
      streamError({
        type: 'response.failed',
        response: { status: 'failed', error: { code: 'rate_limit_exceeded', message: 'slow down' } },
      }),
    ).toEqual({ code: 'rate_limit_exceeded', message: 'slow down' });
    expect(streamError({ type: 'response.failed', response: { status: 'failed', error: null } })).toEqual({
      code: null,
      message: 'response.failed',
    });
    expect(streamError({ type: 'error', code: 'server_error', message: 'boom', param: null })).toEqual({
      code: 'server_error',
      message: 'boom',
    });
    expect(streamError({ type: 'response.incomplete', response: { status: 'incomplete' } })).toBeNull();
    expect(streamError(delta('response.output_text.delta', 'x'))).toBeNull();
  });
});
