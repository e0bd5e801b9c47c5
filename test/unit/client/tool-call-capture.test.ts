/**
 * What the client keeps of an answer for the answer checks, against real servers on 127.0.0.1: the
 * content alone (`content`, no tool-call arguments) and the tool calls (`toolCalls`) assembled from
 * OpenAI-shaped stream fragments (several calls, interleaved, arguments split mid-token and mid-escape)
 * and from a non-streaming message; `outputText` keeps its meaning (content and arguments, for estimates).
 * Parallel calls that a server sends all at `index` 0 (Ollama, Dynamo, LiteLLM's Responses bridge) stay
 * apart by their ids. `content` is kept only when the record asks for it (`keepContent`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StreamChunkParser } from '../../../src/client/chunk-template.js';
import { createInferenceClient } from '../../../src/client/inference-client.js';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import type { InferenceClient } from '../../../src/client/types.js';
import {
  TEST_TIME_INFO,
  TEST_USAGE,
  chunk,
  sendJson,
  sseData,
  startScriptServer,
  startTestServer,
  type TestServer,
} from '../../helpers/fault-servers.js';

const TIMEOUTS = { connectMs: 5_000, headersMs: 10_000, firstTokenMs: 10_000, idleMs: 10_000, totalMs: 30_000 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function serve(server: Promise<TestServer>): Promise<TestServer> {
  const started = await server;
  cleanups.push(() => started.close());
  return started;
}

function client(url: string): InferenceClient {
  const created = createInferenceClient({
    baseUrl: url,
    apiKey: 'sk-test',
    headers: {},
    maxConnections: 2,
    timeouts: TIMEOUTS,
    retry: { maxAttempts: 1, on: [], backoffMs: 50 },
    encoding: { contentType: 'json', gzip: false },
    requestIdHeader: 'x-request-id',
  });
  cleanups.push(() => created.close());
  return created;
}

async function send(target: InferenceClient, stream: boolean, keepContent = true): Promise<RequestRecord> {
  const record = createRequestRecord(0, 0, Math.round(performance.now() * 1000));
  record.keepContent = keepContent;
  await target.send({ body: { model: 'm', messages: [{ role: 'user', content: 'x' }], stream } }, record);
  return record;
}

const call = (index: number, fn: Record<string, unknown>, id?: string): Record<string, unknown> => ({
  tool_calls: [{ index, ...(id === undefined ? {} : { id, type: 'function' }), function: fn }],
});

/** Two calls as OpenAI streams them: each opened with id and name, arguments in pieces, the second interleaved. */
const TOOL_STREAM = [
  sseData(chunk({ role: 'assistant', content: null })),
  sseData(chunk(call(0, { name: 'get_weather', arguments: '' }, 'call_A'))),
  sseData(chunk(call(0, { arguments: '{"ci' }))),
  sseData(chunk(call(0, { arguments: 'ty":"Par' }))),
  sseData(chunk(call(1, { name: 'get_time', arguments: '' }, 'call_B'))),
  sseData(chunk(call(0, { arguments: 'is \\"FR\\"",' }))),
  sseData(chunk(call(1, { arguments: '{"tz":"Europe/Paris"}' }))),
  sseData(chunk(call(0, { arguments: '"unit":"c"}' }))),
  sseData(chunk({}, 'tool_calls', { usage: TEST_USAGE, time_info: TEST_TIME_INFO })),
];

describe('client: answer content and tool calls', () => {
  it('assembles streamed tool calls by index, arguments concatenated, id and name from the first fragment', async () => {
    const server = await serve(startScriptServer([...TOOL_STREAM.map((write) => ({ write })), { end: true }]));
    const record = await send(client(server.url), true);
    expect(record.errorClass).toBeNull();
    expect(record.toolCalls).toEqual([
      { id: 'call_A', name: 'get_weather', arguments: '{"city":"Paris \\"FR\\"","unit":"c"}' },
      { id: 'call_B', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
    ]);
    expect(JSON.parse(record.toolCalls?.[0]?.arguments ?? '')).toEqual({ city: 'Paris "FR"', unit: 'c' });
    expect(record.content).toBe('');
    // outputText keeps its meaning: every argument piece, in arrival order, for token estimates.
    expect(record.outputText).toBe('{"city":"Paris \\"FR\\"",{"tz":"Europe/Paris"}"unit":"c"}');
    expect(record.finishReason).toBe('tool_calls');
  });

  it('keeps content apart from tool-call arguments when an answer has both', async () => {
    const events = [
      sseData(chunk({ role: 'assistant', content: '' })),
      sseData(chunk({ content: 'Let me ' })),
      sseData(chunk({ content: 'check.' })),
      sseData(chunk(call(0, { name: 'lookup', arguments: '{"q":1}' }, 'call_X'))),
      sseData(chunk({}, 'tool_calls', { usage: TEST_USAGE })),
    ];
    const server = await serve(startScriptServer([...events.map((write) => ({ write })), { end: true }]));
    const record = await send(client(server.url), true);
    expect(record.content).toBe('Let me check.');
    expect(record.outputText).toBe('Let me check.{"q":1}');
    expect(record.toolCalls).toEqual([{ id: 'call_X', name: 'lookup', arguments: '{"q":1}' }]);
  });

  it('collects streamed content that took the chunk-template fast path', async () => {
    const pieces = ['{"', 'answer', '":', ' 42', '}'];
    const events = [
      sseData(chunk({ role: 'assistant', content: '' })),
      ...pieces.map((content) => sseData(chunk({ content }))),
      sseData(chunk({}, 'stop', { usage: TEST_USAGE })),
    ];
    const server = await serve(startScriptServer([...events.map((write) => ({ write })), { end: true }]));
    const record = await send(client(server.url), true);
    expect(record.content).toBe('{"answer": 42}');
    expect(record.toolCalls).toBeNull();
  });

  it('reads the tool calls and content of a non-streaming message', async () => {
    const body = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
              { id: 'call_2', type: 'function', function: { name: 'b', arguments: '{}' } },
            ],
          },
        },
      ],
      usage: TEST_USAGE,
    };
    const server = await serve(startTestServer((_req, res) => sendJson(res, 200, body)));
    const record = await send(client(server.url), false);
    expect(record.toolCalls).toEqual([
      { id: 'call_1', name: 'a', arguments: '{"x":1}' },
      { id: 'call_2', name: 'b', arguments: '{}' },
    ]);
    expect(record.content).toBe('');
  });

  it('keeps parallel calls apart that a server sends all at index 0, each whole (Ollama #15457, Dynamo #4723)', async () => {
    // As Ollama and Dynamo stream them: each call whole in one chunk, every one at index 0, distinct ids.
    const events = [
      sseData(chunk({ role: 'assistant', content: '' })),
      sseData(
        chunk(call(0, { name: 'file_write', arguments: '{"filePath":"hello.py","content":"print(1)"}' }, 'call_h')),
      ),
      sseData(chunk({ content: '\n' })),
      sseData(
        chunk(call(0, { name: 'file_write', arguments: '{"filePath":"world.py","content":"print(2)"}' }, 'call_w')),
      ),
      sseData(chunk({}, 'tool_calls', { usage: TEST_USAGE })),
    ];
    const server = await serve(startScriptServer([...events.map((write) => ({ write })), { end: true }]));
    const record = await send(client(server.url), true);
    expect(record.toolCalls).toEqual([
      { id: 'call_h', name: 'file_write', arguments: '{"filePath":"hello.py","content":"print(1)"}' },
      { id: 'call_w', name: 'file_write', arguments: '{"filePath":"world.py","content":"print(2)"}' },
    ]);
  });

  it('keeps parallel calls apart at index 0 whose arguments come in pieces after the opening fragment (LiteLLM #21331)', async () => {
    // The Responses bridge: id and name open each call, argument deltas follow without an id, all at index 0.
    const events = [
      sseData(chunk({ role: 'assistant', content: null })),
      sseData(chunk(call(0, { name: 'get_weather', arguments: '' }, 'call_abc'))),
      sseData(chunk(call(0, { arguments: '{"city": ' }))),
      sseData(chunk(call(0, { arguments: '"SF"}' }))),
      sseData(chunk(call(0, { name: 'get_weather', arguments: '' }, 'call_def'))),
      sseData(chunk(call(0, { arguments: '{"city": ' }))),
      sseData(chunk(call(0, { arguments: '"NY"}' }))),
      sseData(chunk({}, 'tool_calls', { usage: TEST_USAGE })),
    ];
    const server = await serve(startScriptServer([...events.map((write) => ({ write })), { end: true }]));
    const record = await send(client(server.url), true);
    expect(record.toolCalls).toEqual([
      { id: 'call_abc', name: 'get_weather', arguments: '{"city": "SF"}' },
      { id: 'call_def', name: 'get_weather', arguments: '{"city": "NY"}' },
    ]);
  });

  it('keeps the id of a first fragment that has no function yet, and a repeated id extends its call', async () => {
    const events = [
      sseData(chunk({ role: 'assistant', content: null })),
      sseData(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function' }] })),
      sseData(chunk(call(0, { name: 'lookup' }))),
      sseData(chunk(call(0, { arguments: '{"q":' }))),
      sseData(chunk(call(0, { arguments: '1}' }))),
      // A server repeating the id in every fragment of a call: one call, not one per fragment.
      sseData(chunk(call(1, { name: 'ping', arguments: '{' }, 'call_2'))),
      sseData(chunk(call(1, { arguments: '}' }, 'call_2'))),
      sseData(chunk({}, 'tool_calls', { usage: TEST_USAGE })),
    ];
    const server = await serve(startScriptServer([...events.map((write) => ({ write })), { end: true }]));
    const record = await send(client(server.url), true);
    expect(record.toolCalls).toEqual([
      { id: 'call_1', name: 'lookup', arguments: '{"q":1}' },
      { id: 'call_2', name: 'ping', arguments: '{}' },
    ]);
  });

  it('keeps no content when the record does not ask for it (keepContent false), and the same stream with it', async () => {
    const pieces = ['{"', 'answer', '":', ' 42', '}'];
    const events = [
      sseData(chunk({ role: 'assistant', content: '' })),
      ...pieces.map((content) => sseData(chunk({ content }))),
      sseData(chunk({}, 'stop', { usage: TEST_USAGE })),
    ];
    const server = await serve(startScriptServer([...events.map((write) => ({ write })), { end: true }]));
    const target = client(server.url);
    const without = await send(target, true, false);
    expect(without.errorClass).toBeNull();
    expect(without.content).toBe('');
    // outputText (token estimates) is kept either way.
    expect(without.outputText).toBe('{"answer": 42}');
    const kept = await send(target, true, true);
    expect(kept.content).toBe('{"answer": 42}');
  });

  it('tool-call chunks never take the template fast path (each is parsed whole)', () => {
    const parser = new StreamChunkParser();
    const payloads = TOOL_STREAM.map((event) => event.slice('data: '.length).trim());
    let previous: unknown = null;
    for (const data of payloads) {
      const parsed = parser.parse(data);
      expect(parsed).not.toBe(previous);
      expect(parsed).toEqual(JSON.parse(data));
      previous = parsed;
    }
  });
});
