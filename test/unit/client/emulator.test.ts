/**
 * The client against the real emulator (in this process, on a real socket: the subject is the client, so
 * `inferbench serve` as a child, test/cli/serve.test.ts's subject, is not needed): a normal stream, a
 * reasoning model, a non-streaming answer, msgpack+gzip bodies, [DONE], a wrong key, and the emulator's
 * injected faults each landing in their error class and phase. What the client reads is the subject, not
 * when: the models decode 50 times faster (fastBuiltinCatalog), a 300-token answer takes ms, not seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInferenceClient } from '../../../src/client/inference-client.js';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import type { ClientOptions, InferenceClient } from '../../../src/client/types.js';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import { fastBuiltinCatalog } from '../../helpers/in-process-emulator.js';

const KEY = 'sk-emulator-test-key-777';
const TIMEOUTS = { connectMs: 5_000, headersMs: 20_000, firstTokenMs: 20_000, idleMs: 20_000, totalMs: 60_000 };

/**
 * The emulator shares this event loop: a stall longer than the gap between its role chunk and its first
 * token would hand the client both in one read, one timestamp, where firstChunkUs < firstTokenUs is
 * asserted. The built-in 15 ms floor is shorter than a stall on a loaded machine (the first request once
 * saw both at once); every first token here comes at least 250 ms after leaving the queue.
 */
const CATALOG = ((fast) => ({
  ...fast,
  models: fast.models.map((model) => ({ ...model, capacity: { ...model.capacity, ttftFloorMs: 250 } })),
}))(fastBuiltinCatalog());

let emulator: Emulator;
let doneEmulator: Emulator;
const clients: InferenceClient[] = [];

beforeAll(async () => {
  [emulator, doneEmulator] = await Promise.all([
    createEmulator({ apiKeys: [KEY], catalog: CATALOG }),
    createEmulator({ apiKeys: [KEY], catalog: CATALOG, doneMarker: true }),
  ]);
  // The tokenizer's one-off load (a second or more) happens here, not inside the first answer.
  countTokens('warm');
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([emulator?.close(), doneEmulator?.close()]);
});

function client(overrides: Partial<ClientOptions> = {}, url = emulator.url): InferenceClient {
  const created = createInferenceClient({
    baseUrl: url,
    apiKey: KEY,
    headers: { 'x-service-version-patch': '2' },
    maxConnections: 4,
    timeouts: TIMEOUTS,
    retry: { maxAttempts: 1, on: [], backoffMs: 10 },
    encoding: { contentType: 'json', gzip: false },
    requestIdHeader: 'x-request-id',
    ...overrides,
  });
  clients.push(created);
  return created;
}

async function send(
  target: InferenceClient,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<RequestRecord> {
  const record = createRequestRecord(0, 0, Math.round(performance.now() * 1000));
  await target.send(headers === undefined ? { body } : { body, headers }, record);
  return record;
}

const chat = (model: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model,
  messages: [{ role: 'user', content: 'Write a short sentence about rivers.' }],
  stream: true,
  max_completion_tokens: 16,
  ...extra,
});

describe('client against the emulator', () => {
  it('lists the models and streams an answer with usage and time_info', async () => {
    const target = client();
    const models = await target.listModels();
    expect(models).toContain('small-fast-8b');
    const record = await send(target, chat('small-fast-8b'));
    expect(record.errorClass).toBeNull();
    expect(record.status).toBe(200);
    expect(record.outputText.length).toBeGreaterThan(0);
    expect(record.usage?.completion_tokens).toBeGreaterThan(0);
    expect(record.tokenChunkTimesUs.length).toBeGreaterThan(0);
    expect(record.tokenChunkTimesUs.length).toBeLessThanOrEqual(record.usage?.completion_tokens ?? 0);
    expect(record.timeInfo?.total_time).toBeGreaterThan(0);
    expect(record.finishReason).not.toBeNull();
    expect(record.firstChunkUs).toBeLessThan(record.firstTokenUs);
  });

  it('separates reasoning from output on a reasoning model', async () => {
    const record = await send(client(), chat('reasoner-120b', { max_completion_tokens: 200 }));
    expect(record.errorClass).toBeNull();
    expect(record.reasoningText.length).toBeGreaterThan(0);
    if (record.outputText.length > 0) expect(record.firstOutputUs).toBeGreaterThan(record.firstTokenUs);
  });

  it('records a non-streaming answer', async () => {
    const record = await send(client(), chat('small-fast-8b', { stream: false }));
    expect(record.errorClass).toBeNull();
    expect(record.outputText.length).toBeGreaterThan(0);
    expect(record.usage?.completion_tokens).toBeGreaterThan(0);
    expect(record.tokenChunkTimesUs).toEqual([]);
    expect(record.firstTokenUs).toBe(record.endUs);
  });

  it('logprobs in chunks and bodies are not output: the text and token chunks are those of the same answer without them', async () => {
    const target = client();
    for (const [model, maxTokens] of [
      ['small-fast-8b', 24],
      ['reasoner-120b', 300],
    ] as const) {
      for (const stream of [true, false]) {
        const ask = (extra: Record<string, unknown>) =>
          send(target, chat(model, { seed: 21, max_completion_tokens: maxTokens, stream, ...extra }));
        const without = await ask({});
        const withLogprobs = await ask({ logprobs: true, top_logprobs: 5 });
        const label = `${model} stream ${stream}`;
        expect(withLogprobs.errorClass, label).toBeNull();
        expect(withLogprobs.outputText, label).toBe(without.outputText);
        expect(withLogprobs.reasoningText, label).toBe(without.reasoningText);
        expect(withLogprobs.usage, label).toEqual(without.usage);
        const usage = withLogprobs.usage!;
        const reasoningTokens = usage.completion_tokens_details?.reasoning_tokens ?? 0;
        expect(countTokens(withLogprobs.outputText), label).toBe(usage.completion_tokens - reasoningTokens);
        expect(countTokens(withLogprobs.reasoningText), label).toBe(reasoningTokens);
        // One emulator chunk per token, each counted once as a token chunk (none in a whole body).
        expect(withLogprobs.tokenChunkTimesUs.length, label).toBe(stream ? usage.completion_tokens : 0);
        expect(withLogprobs.chunkCount, label).toBe(without.chunkCount);
      }
    }
  });

  it('is understood with msgpack + gzip bodies', async () => {
    const record = await send(client({ encoding: { contentType: 'msgpack', gzip: true } }), chat('small-fast-8b'));
    expect(record.errorClass).toBeNull();
    expect(record.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('ends at [DONE] when the emulator sends it', async () => {
    const record = await send(client({}, doneEmulator.url), chat('small-fast-8b'));
    expect(record.errorClass).toBeNull();
    expect(record.usage).not.toBeNull();
  });

  it('a wrong key is http_4xx with the code and without the key', async () => {
    const wrongKey = 'sk-wrong-key-for-test-123456';
    const record = await send(client({ apiKey: wrongKey }), chat('small-fast-8b'));
    expect(record.status).toBe(401);
    expect(record.errorClass).toBe('http_4xx');
    expect(record.errorCode).toBe('wrong_api_key');
    expect(record.errorMessage).not.toContain(wrongKey);
  });

  for (const [fault, errorClass, phase, timeouts] of [
    ['http_503', 'http_5xx', null, {}],
    ['stream_error;after=2', 'stream_error', null, {}],
    ['reset;after=2', 'reset', null, {}],
    ['stall_before_headers;ms=5000', 'timeout', 'headers', { headersMs: 300 }],
    ['stall_between_tokens;after=2;ms=5000', 'timeout', 'idle', { idleMs: 300 }],
  ] as const) {
    it(`injected fault ${fault} -> ${errorClass}${phase === null ? '' : ` (${phase})`}`, async () => {
      const record = await send(
        client({ timeouts: { ...TIMEOUTS, ...timeouts } }),
        chat('small-fast-8b', { max_completion_tokens: 32 }),
        { 'x-emulator-fault': fault },
      );
      expect(record.errorClass).toBe(errorClass);
      expect(record.timeoutPhase).toBe(phase);
    });
  }
});
