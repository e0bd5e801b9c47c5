/**
 * The purpose-built Responses server (test/helpers/responses-server.ts) speaks what the official `openai`
 * SDK (a client nobody here wrote) parses: typed stream events (created, output_text.delta, reasoning
 * summary deltas, a function call's item and argument deltas, completed / incomplete with usage), a whole
 * `response` body whose `output_text` the SDK assembles, the failure events, and a 404 the SDK raises as
 * APIError. Its timing and counts are what the inferbench tests then hold the client to.
 */
import OpenAI, { APIError } from 'openai';
import type { ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { o200kTokenizer } from '../../../src/util/tokenizer.js';
import {
  ERROR_EVENT_MODEL,
  FAILED_MODEL,
  MODEL,
  REASONING_MODEL,
  type ResponsesServer,
  startResponsesServer,
  TOOL_MODEL,
  toolArgumentDeltas,
} from '../../helpers/responses-server.js';

let server: ResponsesServer;
let client: OpenAI;
const INPUT = 'The quick brown fox jumps over the lazy dog';
const TOKENS = 6;

beforeAll(async () => {
  server = await startResponsesServer({ firstTextMs: 20, tokenMs: 3, tokens: TOKENS, reasoningTokens: 2 });
  client = new OpenAI({ apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 10_000 });
});
afterAll(() => server.close());

async function events(model: string, extra: Record<string, unknown> = {}): Promise<ResponseStreamEvent[]> {
  const stream = await client.responses.create({ model, input: INPUT, stream: true, ...extra });
  const seen: ResponseStreamEvent[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

describe('openai SDK against the Responses server', () => {
  it('streams typed events with text deltas and usage in response.completed', async () => {
    const seen = await events(MODEL);
    expect(seen.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array<string>(TOKENS).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(seen.map((e) => e.sequence_number)).toEqual(seen.map((_, i) => i));
    const deltas = seen.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas.join('')).toBe(' tok'.repeat(TOKENS));
    const last = seen.at(-1);
    if (last?.type !== 'response.completed') throw new Error('no response.completed');
    expect(last.response.status).toBe('completed');
    expect(last.response.output).toMatchObject([
      { type: 'message', content: [{ type: 'output_text', text: ' tok'.repeat(TOKENS) }] },
    ]);
    const inputTokens = o200kTokenizer().count(INPUT);
    expect(last.response.usage).toEqual({
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: TOKENS,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + TOKENS,
    } satisfies ResponseUsage);
  });

  it('ends with response.incomplete (max_output_tokens) when the answer reaches max_output_tokens', async () => {
    const seen = await events(MODEL, { max_output_tokens: 4 });
    const last = seen.at(-1);
    if (last?.type !== 'response.incomplete') throw new Error(`ended with ${last?.type}`);
    expect(last.response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(last.response.usage?.output_tokens).toBe(4);
    expect(seen.filter((e) => e.type === 'response.output_text.delta')).toHaveLength(4);
  });

  it('streams reasoning summary deltas before the answer and counts them as reasoning tokens', async () => {
    const seen = await events(REASONING_MODEL);
    const reasoning = seen.flatMap((e) => (e.type === 'response.reasoning_summary_text.delta' ? [e.delta] : []));
    expect(reasoning).toEqual([' tok', ' tok']);
    const last = seen.at(-1);
    if (last?.type !== 'response.completed') throw new Error('no response.completed');
    expect(last.response.usage?.output_tokens_details.reasoning_tokens).toBe(2);
    expect(last.response.usage?.output_tokens).toBe(2 + TOKENS);
  });

  it('streams a function call: its item, then argument deltas that join into JSON', async () => {
    const seen = await events(TOOL_MODEL, {
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' }, strict: false }],
    });
    const added = seen.find((e) => e.type === 'response.output_item.added');
    expect(added?.type === 'response.output_item.added' && added.item).toMatchObject({
      type: 'function_call',
      name: 'get_weather',
      call_id: expect.stringMatching(/^call_/),
    });
    const args = seen.flatMap((e) => (e.type === 'response.function_call_arguments.delta' ? [e.delta] : []));
    expect(args).toEqual(toolArgumentDeltas(TOKENS));
    expect(JSON.parse(args.join(''))).toEqual({ k0: 0, k1: 1, k2: 2, k3: 3 });
  });

  it('answers a whole response without stream; the SDK assembles its output_text', async () => {
    const response = await client.responses.create({ model: MODEL, input: INPUT });
    expect(response.output_text).toBe(' tok'.repeat(TOKENS));
    expect(response.status).toBe('completed');
    expect(response.usage?.output_tokens).toBe(TOKENS);
  });

  it('parses response.failed and an error event as typed events; raises a 404', async () => {
    const failed = await events(FAILED_MODEL);
    const lastFailed = failed.at(-1);
    if (lastFailed?.type !== 'response.failed') throw new Error(`ended with ${lastFailed?.type}`);
    expect(lastFailed.response.error).toEqual({ code: 'server_error', message: 'engine failed mid-stream' });
    const errored = await events(ERROR_EVENT_MODEL);
    expect(errored.at(-1)).toMatchObject({ type: 'error', code: 'engine_error', message: 'engine failed mid-stream' });
    expect(errored.filter((e) => e.type === 'response.output_text.delta')).toHaveLength(2);
    await expect(client.responses.create({ model: 'nope', input: INPUT })).rejects.toSatisfy(
      (error) => error instanceof APIError && error.status === 404,
    );
  });
});
