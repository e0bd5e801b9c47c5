/**
 * Responses (POST /v1/responses, OpenAI's Responses API): typed stream events (`type` in every payload,
 * the same name on the SSE `event:` line) and whole `response` bodies.
 *
 * Stream: generated text comes in `response.output_text.delta` (answer), `response.reasoning_text.delta`
 * and `response.reasoning_summary_text.delta` (reasoning), and tool calls as a `function_call` item opened
 * by `response.output_item.added` (its name: generated text, as chat's first tool-call fragment) and
 * extended by `response.function_call_arguments.delta` (or given whole by `.done` when no delta carried
 * them); each `delta` is one token event (TTFT is the first
 * non-empty one). Every other event (created, in_progress, part and item bookkeeping, `.done` repeats) is
 * counted and carries no token. `response.completed` and `response.incomplete` carry the final response:
 * its usage (input_tokens / output_tokens, converted to chat's names) and how it ended (finishReason:
 * `stop`, `tool_calls` when the answer called a tool, `length` for an answer cut at max_output_tokens,
 * `content_filter`). `response.failed` and an `error` event are stream errors (streamError).
 *
 * Body (`stream: false`): the `response` object; `output[]` items of type `message` (`output_text`
 * parts), `reasoning` (summary and content texts) and `function_call`.
 *
 * No chunk templates: every event has a `sequence_number` that differs from the previous one, so no two
 * token events are byte for byte alike outside their text (chunk-template.ts); every event is JSON.parsed.
 */
import type { Usage } from '../../protocol/chat.js';
import { errorDetails, type ErrorDetails } from '../error-body.js';
import { isObject, nonEmptyString, type Json } from '../json-shape.js';
import type { RequestRecord } from '../request-record.js';
import { applyToolCallFragment } from '../tool-call-assembly.js';
import type { ApiReader } from './api-reader.js';

/** What an event generated (flags: no allocation per event). */
const NONE = 0;
const REASONING = 1;
const ANSWER = 2;

function appendAnswer(record: RequestRecord, text: unknown): number {
  if (!nonEmptyString(text)) return NONE;
  record.outputText += text;
  if (record.keepContent) record.content += text;
  return ANSWER;
}

function appendReasoning(record: RequestRecord, text: unknown): number {
  if (!nonEmptyString(text)) return NONE;
  record.reasoningText += text;
  return REASONING;
}

/** A function_call item (opened, or whole in a body) at `index`: its call id, name and any arguments. */
function applyFunctionCall(record: RequestRecord, item: Json, index: number): number {
  const fragment = { index, id: item['call_id'], function: { name: item['name'], arguments: item['arguments'] } };
  return applyToolCallFragment(record, fragment, index) ? ANSWER : NONE;
}

/**
 * The whole arguments of `function_call_arguments.done`, for a call at its `output_index` whose arguments
 * no delta carried (a server that does not stream them); a call with streamed arguments is left as is
 * (the done event repeats them).
 */
function applyUnstreamedArguments(record: RequestRecord, event: Json): number {
  const index = event['output_index'];
  const args = event['arguments'];
  if (!Number.isInteger(index) || !nonEmptyString(args)) return NONE;
  const at = record.toolCallIndexes?.lastIndexOf(index as number) ?? -1;
  const call = at === -1 ? undefined : record.toolCalls?.[at];
  if (call === undefined || call.arguments !== '') return NONE;
  const fragment = { index, function: { arguments: args } };
  return applyToolCallFragment(record, fragment, index as number) ? ANSWER : NONE;
}

/** Responses usage (input_tokens, output_tokens and their details) in chat's shape; null without output_tokens. */
function chatUsage(usage: unknown): Usage | null {
  if (!isObject(usage) || typeof usage['output_tokens'] !== 'number') return null;
  const input = typeof usage['input_tokens'] === 'number' ? usage['input_tokens'] : 0;
  const output = usage['output_tokens'];
  const total = typeof usage['total_tokens'] === 'number' ? usage['total_tokens'] : input + output;
  const result: Usage = { prompt_tokens: input, completion_tokens: output, total_tokens: total };
  const inputDetails = usage['input_tokens_details'];
  if (isObject(inputDetails) && typeof inputDetails['cached_tokens'] === 'number')
    result.prompt_tokens_details = { cached_tokens: inputDetails['cached_tokens'] };
  const outputDetails = usage['output_tokens_details'];
  if (isObject(outputDetails) && typeof outputDetails['reasoning_tokens'] === 'number')
    result.completion_tokens_details = { reasoning_tokens: outputDetails['reasoning_tokens'] };
  return result;
}

/** How a finished response ended, in chat's finish_reason words; null while it has not. */
function finishReason(record: RequestRecord, response: Json): string | null {
  const status = response['status'];
  if (status === 'completed') return record.toolCalls === null ? 'stop' : 'tool_calls';
  if (status !== 'incomplete') return null;
  const details = response['incomplete_details'];
  const reason = isObject(details) ? details['reason'] : undefined;
  if (reason === 'max_output_tokens') return 'length';
  return nonEmptyString(reason) ? reason : 'incomplete';
}

/** id, usage and the end of a response object (of created / completed / incomplete events, or a body). */
function applyResponse(record: RequestRecord, response: unknown): void {
  if (!isObject(response)) return;
  if (record.responseId === null && nonEmptyString(response['id'])) record.responseId = response['id'];
  const usage = chatUsage(response['usage']);
  if (usage !== null) record.usage = usage;
  const finish = finishReason(record, response);
  if (finish !== null) record.finishReason = finish;
}

function generatedBy(record: RequestRecord, event: Json): number {
  switch (event['type']) {
    case 'response.output_text.delta':
      return appendAnswer(record, event['delta']);
    case 'response.reasoning_text.delta':
    case 'response.reasoning_summary_text.delta':
      return appendReasoning(record, event['delta']);
    case 'response.function_call_arguments.delta': {
      const index = event['output_index'];
      if (!Number.isInteger(index)) return NONE;
      const fragment = { index, function: { arguments: event['delta'] } };
      return applyToolCallFragment(record, fragment, index as number) ? ANSWER : NONE;
    }
    case 'response.function_call_arguments.done':
      return applyUnstreamedArguments(record, event);
    case 'response.output_item.added': {
      const item = event['item'];
      const index = event['output_index'];
      if (!isObject(item) || item['type'] !== 'function_call' || !Number.isInteger(index)) return NONE;
      return applyFunctionCall(record, item, index as number);
    }
    case 'response.created':
    case 'response.completed':
    case 'response.incomplete':
      applyResponse(record, event['response']);
      return NONE;
    default:
      return NONE;
  }
}

function applyStreamEvent(record: RequestRecord, event: Json, atUs: number): void {
  const generated = generatedBy(record, event);
  if (generated === NONE) return;
  if (generated === ANSWER && Number.isNaN(record.firstOutputUs)) record.firstOutputUs = atUs;
  if (Number.isNaN(record.firstTokenUs)) record.firstTokenUs = atUs;
  record.lastTokenUs = atUs;
  record.tokenChunkTimesUs.push(atUs);
}

/** The texts of a body's `output[]` items; what they generated. */
function applyOutput(record: RequestRecord, output: unknown): number {
  if (!Array.isArray(output)) return NONE;
  let generated = NONE;
  for (let i = 0; i < output.length; i += 1) {
    const item: unknown = output[i];
    if (!isObject(item)) continue;
    const type = item['type'];
    if (type === 'function_call') generated |= applyFunctionCall(record, item, i);
    else if (type === 'message' || type === 'reasoning') {
      for (const key of ['summary', 'content'] as const) {
        const parts = item[key];
        if (!Array.isArray(parts)) continue;
        for (const part of parts as unknown[]) {
          if (!isObject(part)) continue;
          if (part['type'] === 'output_text') generated |= appendAnswer(record, part['text']);
          else if (part['type'] === 'reasoning_text' || part['type'] === 'summary_text')
            generated |= appendReasoning(record, part['text']);
        }
      }
    }
  }
  return generated;
}

function applyBody(record: RequestRecord, body: Json, atUs: number): void {
  record.firstChunkUs = atUs;
  const generated = applyOutput(record, body['output']);
  if (generated & ANSWER) record.firstOutputUs = atUs;
  if (generated !== NONE) {
    record.firstTokenUs = atUs;
    record.lastTokenUs = atUs;
  }
  applyResponse(record, body);
}

/** `response.failed` (its error under `response`) and an `error` event without the `event: error` line. */
function streamError(event: Json): ErrorDetails | null {
  const type = event['type'];
  if (type === 'error') return errorDetails(event);
  if (type !== 'response.failed') return null;
  const response = event['response'];
  const details = errorDetails(isObject(response) ? response['error'] : null);
  return details.message === null ? { ...details, message: 'response.failed' } : details;
}

export const responsesReader: ApiReader = { applyStreamEvent, applyBody, textSlot: null, streamError };
