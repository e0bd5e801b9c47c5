/**
 * The streaming client against real servers on 127.0.0.1 (test/helpers/fault-servers.ts): what it
 * records for good streams of every framing, and the class and phase of every fault.
 */
import { decode as msgpackDecode } from '@msgpack/msgpack';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createInferenceClient } from '../../../src/client/inference-client.js';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import type { ClientOptions, InferenceClient } from '../../../src/client/types.js';
import { isInferbenchError } from '../../../src/errors.js';
import {
  TEST_TIME_INFO,
  TEST_USAGE,
  chunk,
  helloStream,
  playScript,
  sendJson,
  sseData,
  startByteByByteServer,
  startScriptServer,
  startSilentServer,
  startTestServer,
  startThrottlingServer,
  type ScriptStep,
  type TestServer,
} from '../../helpers/fault-servers.js';

const API_KEY = 'sk-test-5ecret-value-0042';
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

function client(url: string, overrides: Partial<ClientOptions> = {}): InferenceClient {
  const created = createInferenceClient({
    baseUrl: url,
    apiKey: API_KEY,
    headers: { 'x-service-version-patch': '2', 'x-service-3rd-party-integration': 'inferbench/test' },
    maxConnections: 4,
    timeouts: TIMEOUTS,
    retry: { maxAttempts: 1, on: [], backoffMs: 50 },
    encoding: { contentType: 'json', gzip: false },
    requestIdHeader: 'x-request-id',
    ...overrides,
  });
  cleanups.push(() => created.close());
  return created;
}

const BODY = {
  model: 'test-model',
  messages: [{ role: 'user', content: 'Say hello' }],
  stream: true,
  max_completion_tokens: 8,
};

async function send(
  target: InferenceClient,
  body: Record<string, unknown> = BODY,
  signal?: AbortSignal,
): Promise<RequestRecord> {
  const record = createRequestRecord(0, 0, Math.round(performance.now() * 1000));
  await target.send({ body }, record, signal);
  return record;
}

function steps(events: readonly string[], end: 'end' | 'destroy' | 'none' = 'end'): ScriptStep[] {
  const out: ScriptStep[] = events.map((write) => ({ write }));
  if (end === 'end') out.push({ end: true });
  if (end === 'destroy') out.push({ destroy: true });
  return out;
}

const ms = (us: number): number => us / 1000;

describe('InferenceClient: streams', () => {
  it('reads a rate-limit remaining of 1,000,000,000 or more as unlimited: no headroom (NaN)', async () => {
    const server = await serve(
      startScriptServer(steps(helloStream()), 200, {
        'x-ratelimit-remaining-requests-minute': '1000000000',
        'x-ratelimit-remaining-tokens-minute': '999999999',
      }),
    );
    const record = await send(client(server.url));
    expect(record.errorClass).toBeNull();
    expect(record.rateLimitRemainingRequests).toBeNaN();
    expect(record.rateLimitRemainingTokens).toBe(999_999_999);
  });

  it('records a complete stream: text, counts, usage and time_info exactly, headers and body as sent', async () => {
    const server = await serve(
      startScriptServer(steps(helloStream()), 200, {
        'x-ratelimit-remaining-requests-minute': '41',
        'x-ratelimit-remaining-tokens-minute': '9000',
      }),
    );
    const record = await send(client(server.url));
    expect(record.errorClass).toBeNull();
    expect(record.status).toBe(200);
    expect(record.outputText).toBe('Hello wörld!');
    expect(record.chunkCount).toBe(5);
    expect(record.tokenChunkTimesUs).toHaveLength(3);
    expect(record.usage).toEqual(TEST_USAGE);
    expect(record.timeInfo).toEqual(TEST_TIME_INFO);
    expect(record.finishReason).toBe('stop');
    expect(record.attempts).toBe(1);
    expect(record.rateLimitRemainingRequests).toBe(41);
    expect(record.rateLimitRemainingTokens).toBe(9000);
    expect(record.sentUs).toBeLessThanOrEqual(record.headersUs);
    expect(record.headersUs).toBeLessThanOrEqual(record.firstChunkUs);
    expect(record.firstChunkUs).toBeLessThanOrEqual(record.firstTokenUs);
    expect(record.lastTokenUs).toBeLessThanOrEqual(record.endUs);
    const received = server.requests[0];
    expect(received?.url).toBe('/v1/chat/completions');
    expect(received?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(received?.headers['x-service-version-patch']).toBe('2');
    expect(received?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(received?.body.toString('utf8') ?? '')).toEqual(BODY);
  });

  it('TTFT ignores a role-only first chunk; ITL gaps follow the server', async () => {
    const events = helloStream();
    const server = await serve(
      startScriptServer([
        { write: events[0] as string },
        { afterMs: 80, write: events[1] as string },
        { afterMs: 40, write: events[2] as string },
        { afterMs: 40, write: events[3] as string },
        { write: events[4] as string },
        { end: true },
      ]),
    );
    const record = await send(client(server.url));
    expect(record.errorClass).toBeNull();
    // The role chunk is a chunk but not a token.
    expect(record.chunkCount).toBe(5);
    expect(record.tokenChunkTimesUs).toHaveLength(3);
    expect(record.firstChunkUs).toBeLessThanOrEqual(record.firstTokenUs);
    expect(record.firstTokenUs).toBe(record.tokenChunkTimesUs[0]);
    // The server waits 80 ms after the role chunk: the TTFT cannot be shorter (generous upper bound: loaded CI).
    const ttftMs = ms(record.firstTokenUs - record.sentUs);
    expect(ttftMs).toBeGreaterThanOrEqual(75);
    expect(ttftMs).toBeLessThan(2_000);
    expect(record.firstOutputUs).toBe(record.firstTokenUs);
    const [a, b, c] = record.tokenChunkTimesUs as [number, number, number];
    expect(b).toBeGreaterThanOrEqual(a);
    expect(c).toBeGreaterThanOrEqual(b);
    expect(ms(c - a)).toBeGreaterThanOrEqual(40);
    expect(ms(c - a)).toBeLessThan(2_000);
    expect(record.lastTokenUs).toBe(c);
  });

  it('takes usage from a separate choices:[] chunk and stops at [DONE]', async () => {
    const server = await serve(startScriptServer(steps(helloStream({ usage: 'separate', done: true }))));
    const record = await send(client(server.url));
    expect(record.errorClass).toBeNull();
    expect(record.usage).toEqual(TEST_USAGE);
    expect(record.timeInfo).toBeNull();
    expect(record.chunkCount).toBe(6);
    // The usage-only chunk has no choices: llmperf and vLLM count the other five (aggregate/dialects/).
    expect(record.choiceChunkCount).toBe(5);
    expect(record.lastChoiceUs).toBeGreaterThanOrEqual(record.lastTokenUs);
    expect(record.lastChoiceUs).toBeLessThanOrEqual(record.endUs);
    expect(record.outputText).toBe('Hello wörld!');
  });

  it('accepts a stream without usage', async () => {
    const server = await serve(startScriptServer(steps(helloStream({ usage: 'none' }))));
    const record = await send(client(server.url));
    expect(record.errorClass).toBeNull();
    expect(record.usage).toBeNull();
    expect(record.finishReason).toBe('stop');
  });

  it('decodes CRLF framing with comments and [DONE]', async () => {
    const server = await serve(
      startScriptServer(steps([': ping\r\n\r\n', ...helloStream({ eol: '\r\n', done: true })])),
    );
    const record = await send(client(server.url));
    expect(record.errorClass).toBeNull();
    expect(record.outputText).toBe('Hello wörld!');
    expect(record.usage).toEqual(TEST_USAGE);
  });

  it('decodes a stream whose every byte arrives in its own write (inside UTF-8 characters too)', async () => {
    const events = helloStream({ done: true });
    events.splice(2, 0, sseData(chunk({ content: ' 日本語🎉' })));
    const server = await serve(startByteByByteServer(events.join('')));
    const record = await send(client(server.url));
    expect(record.errorClass).toBeNull();
    expect(record.outputText).toBe('Hello 日本語🎉 wörld!');
    expect(record.tokenChunkTimesUs).toHaveLength(4);
  });

  it('counts reasoning (both field names) as tokens but not as output; a tool-call name opens output', async () => {
    const server = await serve(
      startScriptServer(
        steps([
          sseData(chunk({ role: 'assistant' })),
          sseData(chunk({ reasoning: 'think' })),
          sseData(chunk({ reasoning_content: 'ing' })),
          sseData(
            chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather' } }] }),
          ),
          sseData(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] })),
          sseData(chunk({}, 'tool_calls')),
        ]),
      ),
    );
    const record = await send(client(server.url));
    expect(record.errorClass).toBeNull();
    expect(record.reasoningText).toBe('thinking');
    expect(record.outputText).toBe('{"city":"Oslo"}');
    expect(record.tokenChunkTimesUs).toHaveLength(4);
    expect(record.firstTokenUs).toBe(record.tokenChunkTimesUs[0]);
    expect(record.firstOutputUs).toBe(record.tokenChunkTimesUs[2]);
    expect(record.finishReason).toBe('tool_calls');
  });

  it('records a non-streaming answer with every token timestamp at the body', async () => {
    const server = await serve(
      startTestServer((_req, res) =>
        sendJson(res, 200, {
          id: 'x',
          object: 'chat.completion',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hi there' } }],
          usage: TEST_USAGE,
          time_info: TEST_TIME_INFO,
          service_tier_used: 'flex',
        }),
      ),
    );
    const record = await send(client(server.url), { ...BODY, stream: false });
    expect(record.errorClass).toBeNull();
    expect(record.outputText).toBe('Hi there');
    expect(record.firstChunkUs).toBe(record.firstTokenUs);
    expect(record.firstOutputUs).toBe(record.firstTokenUs);
    expect(record.lastTokenUs).toBe(record.firstTokenUs);
    expect(record.endUs).toBe(record.firstTokenUs);
    expect(record.tokenChunkTimesUs).toEqual([]);
    expect(record.usage).toEqual(TEST_USAGE);
    expect(record.timeInfo).toEqual(TEST_TIME_INFO);
    expect(record.serviceTierUsed).toBe('flex');
  });
});

describe('InferenceClient: faults are classified data', () => {
  it('connection refused -> connect', async () => {
    const server = await startSilentServer();
    const url = server.url;
    await server.close();
    const record = await send(client(url));
    expect(record.errorClass).toBe('connect');
    expect(record.status).toBe(0);
    expect(record.errorMessage).toContain('ECONNREFUSED');
  });

  it('unresolvable host -> connect', async () => {
    const record = await send(client('http://inferbench-no-such-host.invalid:9'));
    expect(record.errorClass).toBe('connect');
    expect(record.status).toBe(0);
  });

  it('no connection free within the connect timeout -> timeout (connect)', async () => {
    const server = await serve(startSilentServer());
    const target = client(server.url, {
      maxConnections: 1,
      timeouts: { ...TIMEOUTS, connectMs: 200, headersMs: 1_000 },
    });
    const first = send(target);
    const second = await send(target);
    expect(second.errorClass).toBe('timeout');
    expect(second.timeoutPhase).toBe('connect');
    const firstRecord = await first;
    expect(firstRecord.timeoutPhase).toBe('headers');
  });

  it('server never answers -> timeout (headers), without hanging', async () => {
    const server = await serve(startSilentServer());
    const started = performance.now();
    const record = await send(client(server.url, { timeouts: { ...TIMEOUTS, headersMs: 200 } }));
    const elapsedMs = performance.now() - started;
    expect(record.errorClass).toBe('timeout');
    expect(record.timeoutPhase).toBe('headers');
    expect(elapsedMs).toBeGreaterThanOrEqual(195);
    expect(elapsedMs).toBeLessThan(5_000);
  });

  it('role chunk then silence -> timeout (first_token)', async () => {
    const server = await serve(startScriptServer([{ write: helloStream()[0] as string }]));
    const record = await send(client(server.url, { timeouts: { ...TIMEOUTS, firstTokenMs: 250, idleMs: 5_000 } }));
    expect(record.errorClass).toBe('timeout');
    expect(record.timeoutPhase).toBe('first_token');
    expect(record.chunkCount).toBe(1);
  });

  it('stall between chunks -> timeout (idle)', async () => {
    const events = helloStream();
    const server = await serve(
      startScriptServer([
        { write: events[0] as string },
        { write: events[1] as string },
        { afterMs: 5_000, write: events[2] as string },
      ]),
    );
    const record = await send(client(server.url, { timeouts: { ...TIMEOUTS, idleMs: 250 } }));
    expect(record.errorClass).toBe('timeout');
    expect(record.timeoutPhase).toBe('idle');
    expect(record.outputText).toBe('Hello');
  });

  it('a slow but steady stream -> timeout (total)', async () => {
    const tokens: ScriptStep[] = Array.from({ length: 100 }, () => ({
      afterMs: 50,
      write: sseData(chunk({ content: 'x' })),
    }));
    const server = await serve(startScriptServer(tokens));
    const record = await send(client(server.url, { timeouts: { ...TIMEOUTS, idleMs: 2_000, totalMs: 400 } }));
    expect(record.errorClass).toBe('timeout');
    expect(record.timeoutPhase).toBe('total');
    expect(record.tokenChunkTimesUs.length).toBeGreaterThan(0);
  });

  it('socket reset mid-stream -> reset', async () => {
    const server = await serve(
      startScriptServer([...steps(helloStream().slice(0, 3), 'none'), { afterMs: 50, destroy: true }]),
    );
    const record = await send(client(server.url));
    expect(record.errorClass).toBe('reset');
    expect(record.outputText).toBe('Hello wörld');
  });

  it('body ends after text without finish_reason or [DONE] -> stream_truncated', async () => {
    const server = await serve(startScriptServer(steps(helloStream().slice(0, 3))));
    const record = await send(client(server.url));
    expect(record.errorClass).toBe('stream_truncated');
  });

  it('unparseable data payload -> bad_chunk', async () => {
    const server = await serve(
      startScriptServer(steps([helloStream()[0] as string, 'data: {"choices":[{"delta":\n\n'])),
    );
    const record = await send(client(server.url));
    expect(record.errorClass).toBe('bad_chunk');
  });

  it('non-JSON 200 body of a non-streaming request -> bad_chunk', async () => {
    const server = await serve(startTestServer((_req, res) => sendJson(res, 200, '<html>gateway</html>')));
    const record = await send(client(server.url), { ...BODY, stream: false });
    expect(record.errorClass).toBe('bad_chunk');
  });

  it('a 200 HTML page or plain text -> wrong_content_type naming the type, with an excerpt and no key', async () => {
    const page = `<!doctype html>\n<html><body><h1>502 Bad Gateway</h1> key ${API_KEY}</body></html>`;
    const html = await serve(
      startTestServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(page);
      }),
    );
    const streamed = await send(client(html.url));
    expect(streamed.errorClass).toBe('wrong_content_type');
    expect(streamed.errorMessage).toMatch(
      /^200 answer with content-type "text\/html; charset=utf-8", expected text\/event-stream: <!doctype html> <html><body><h1>502 Bad Gateway<\/h1>/,
    );
    expect(streamed.errorMessage).not.toContain(API_KEY);
    const text = await serve(
      startTestServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('upstream connect error');
      }),
    );
    const plain = await send(client(text.url), { ...BODY, stream: false });
    expect(plain.errorClass).toBe('wrong_content_type');
    expect(plain.errorMessage).toBe(
      '200 answer with content-type "text/plain", expected application/json: upstream connect error',
    );
  });

  it('data: {"error":...} in the stream -> stream_error with message and code', async () => {
    const error = {
      error: {
        message: 'model overloaded',
        type: 'service_unavailable_error',
        param: null,
        code: 'service_unavailable',
      },
      status_code: 503,
    };
    const server = await serve(startScriptServer(steps([...helloStream().slice(0, 2), sseData(error)], 'none')));
    const record = await send(client(server.url));
    expect(record.errorClass).toBe('stream_error');
    expect(record.errorMessage).toBe('model overloaded');
    expect(record.errorCode).toBe('service_unavailable');
  });

  it('event: error in the stream -> stream_error', async () => {
    const server = await serve(
      startScriptServer(
        steps([helloStream()[0] as string, 'event: error\ndata: {"message":"boom","code":"internal_error"}\n\n']),
      ),
    );
    const record = await send(client(server.url));
    expect(record.errorClass).toBe('stream_error');
    expect(record.errorMessage).toBe('boom');
    expect(record.errorCode).toBe('internal_error');
  });

  for (const [status, errorClass] of [
    [400, 'http_4xx'],
    [404, 'http_4xx'],
    [429, 'http_429'],
    [500, 'http_5xx'],
    [503, 'http_5xx'],
  ] as const) {
    it(`HTTP ${status} -> ${errorClass} with the server's message and code`, async () => {
      const server = await serve(
        startTestServer((_req, res) =>
          sendJson(
            res,
            status,
            { message: `failure ${status}`, type: 'x', param: null, code: `code_${status}` },
            { 'x-ratelimit-remaining-requests-minute': '0' },
          ),
        ),
      );
      const record = await send(client(server.url));
      expect(record.status).toBe(status);
      expect(record.errorClass).toBe(errorClass);
      expect(record.errorMessage).toBe(`failure ${status}`);
      expect(record.errorCode).toBe(`code_${status}`);
      expect(record.rateLimitRemainingRequests).toBe(0);
    });
  }

  it('an aborted signal ends the request as timeout (total) without waiting for the server', async () => {
    const server = await serve(startSilentServer());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const record = await send(client(server.url), BODY, controller.signal);
    expect(record.errorClass).toBe('timeout');
    expect(record.timeoutPhase).toBe('total');
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('close() ends requests in flight as timeout (total)', async () => {
    const server = await serve(startSilentServer());
    const target = client(server.url);
    const pending = send(target);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await target.close();
    const record = await pending;
    expect(record.errorClass).toBe('timeout');
    expect(record.timeoutPhase).toBe('total');
  });

  it('ends at [DONE] even when the server keeps the body open, and frees the connection later', async () => {
    const server = await serve(startScriptServer(steps(helloStream({ done: true }), 'none')));
    const target = client(server.url, { maxConnections: 1, timeouts: { ...TIMEOUTS, idleMs: 200 } });
    const started = performance.now();
    const first = await send(target);
    expect(first.errorClass).toBeNull();
    expect(performance.now() - started).toBeLessThan(1_000);
    const second = await send(target);
    expect(second.errorClass).toBeNull();
    expect(server.requests).toHaveLength(2);
  });

  it('never puts the API key into errorMessage, even when the server echoes it', async () => {
    const server = await serve(
      startTestServer((req, res, index) => {
        const echoed = `bad key ${String(req.headers.authorization)} (${API_KEY.slice(3)}) ${API_KEY}`;
        if (index === 0)
          sendJson(res, 401, { message: echoed, type: 'authentication_error', param: null, code: 'wrong_api_key' });
        else playScript(res, steps([sseData({ error: { message: echoed, code: 'x' } })]));
      }),
    );
    const target = client(server.url);
    for (const record of [await send(target), await send(target)]) {
      expect(record.errorClass === 'http_4xx' || record.errorClass === 'stream_error').toBe(true);
      expect(record.errorMessage).not.toContain(API_KEY);
      expect(record.errorMessage).toContain('Bearer ***');
    }
  });
});

describe('InferenceClient: composed behaviour', () => {
  it('retries a 429 after its retry-after, then succeeds with attempts 2', async () => {
    const server = await serve(startThrottlingServer(1, '0.3'));
    const record = await send(
      client(server.url, { retry: { maxAttempts: 3, on: ['http_429', 'http_5xx'], backoffMs: 10 } }),
    );
    expect(record.errorClass).toBeNull();
    expect(record.attempts).toBe(2);
    expect(record.status).toBe(200);
    expect(record.outputText).toBe('Hello wörld!');
    const [first, second] = server.requests;
    expect((second?.arrivedMs ?? 0) - (first?.arrivedMs ?? 0)).toBeGreaterThanOrEqual(280);
    // Measured from the first attempt: the wait is inside the latency, not hidden.
    expect(ms(record.firstTokenUs - record.sentUs)).toBeGreaterThanOrEqual(280);
  });

  it('retries a 5xx and a reset with exponential backoff, never a class it was not asked to', async () => {
    const server = await serve(
      startTestServer((_req, res, index) => {
        if (index === 0) sendJson(res, 503, { message: 'busy' });
        else if (index === 1) playScript(res, [{ write: helloStream()[0] as string }, { afterMs: 20, destroy: true }]);
        else if (index === 2) playScript(res, steps(helloStream()));
        else sendJson(res, 400, { message: 'bad' });
      }),
    );
    const started = performance.now();
    const record = await send(
      client(server.url, { retry: { maxAttempts: 5, on: ['http_5xx', 'reset'], backoffMs: 40 } }),
    );
    expect(record.errorClass).toBeNull();
    expect(record.attempts).toBe(3);
    expect(record.chunkCount).toBe(5);
    // Waits of 40 then 80 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
    const fourth = await send(client(server.url, { retry: { maxAttempts: 5, on: ['http_5xx'], backoffMs: 10 } }));
    expect(fourth.errorClass).toBe('http_4xx');
    expect(fourth.attempts).toBe(1);
  });

  it('honours an HTTP-date retry-after and stops waiting when aborted', async () => {
    const server = await serve(startThrottlingServer(5, new Date(Date.now() + 30_000).toUTCString()));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = performance.now();
    const record = await send(
      client(server.url, { retry: { maxAttempts: 3, on: ['http_429'], backoffMs: 10 } }),
      BODY,
      controller.signal,
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
    expect(record.errorClass).toBe('timeout');
    expect(record.timeoutPhase).toBe('total');
    expect(record.attempts).toBe(1);
  });

  it('gives up after maxAttempts and keeps the last attempt error', async () => {
    const server = await serve(startThrottlingServer(5, '0'));
    const record = await send(client(server.url, { retry: { maxAttempts: 2, on: ['http_429'], backoffMs: 10 } }));
    expect(record.errorClass).toBe('http_429');
    expect(record.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('sends msgpack, gzip and gzip+msgpack bodies a server can decode', async () => {
    const server = await serve(startScriptServer(steps(helloStream())));
    for (const encoding of [
      { contentType: 'msgpack', gzip: false },
      { contentType: 'json', gzip: true },
      { contentType: 'msgpack', gzip: true },
    ] as const) {
      const record = await send(client(server.url, { encoding }));
      expect(record.errorClass).toBeNull();
      const received = server.requests.at(-1);
      const raw = encoding.gzip ? gunzipSync(received?.body ?? Buffer.alloc(0)) : (received?.body ?? Buffer.alloc(0));
      expect(received?.headers['content-encoding']).toBe(encoding.gzip ? 'gzip' : undefined);
      expect(received?.headers['content-type']).toBe(
        encoding.contentType === 'msgpack' ? 'application/vnd.msgpack' : 'application/json',
      );
      const decoded = encoding.contentType === 'msgpack' ? msgpackDecode(raw) : JSON.parse(raw.toString('utf8'));
      expect(decoded).toEqual(BODY);
    }
  });

  it('reuses keep-alive connections across requests', async () => {
    const server = await serve(startScriptServer(steps(helloStream({ done: true }))));
    const target = client(server.url, { maxConnections: 1 });
    for (let i = 0; i < 5; i += 1) expect((await send(target)).errorClass).toBeNull();
    const ports = new Set(server.requests.map((r) => r.remotePort));
    expect(server.requests).toHaveLength(5);
    expect(ports.size).toBe(1);
  });

  it('listModels returns the ids with auth, throws TARGET_ERROR on a 401 and TARGET_UNREACHABLE with nobody listening', async () => {
    const server = await serve(
      startTestServer((req, res) => {
        if (req.headers.authorization !== `Bearer ${API_KEY}`)
          sendJson(res, 401, { message: `wrong key ${String(req.headers.authorization)}` });
        else
          sendJson(res, 200, {
            object: 'list',
            data: [
              { id: 'model-a', object: 'model' },
              { id: 'model-b', object: 'model' },
            ],
          });
      }),
    );
    expect(await client(server.url).listModels()).toEqual(['model-a', 'model-b']);
    const otherKey = 'sk-other-key-000000001';
    const wrong = client(server.url, { apiKey: otherKey });
    const error: unknown = await wrong.listModels().catch((e: unknown) => e);
    expect(isInferbenchError(error)).toBe(true);
    // An answer, though an error: the target is there (a profile that names its models can still run).
    expect(isInferbenchError(error) && error.code).toBe('TARGET_ERROR');
    expect(String((error as Error).message)).not.toContain(otherKey);
    await server.close();
    const gone: unknown = await client(server.url)
      .listModels()
      .catch((e: unknown) => e);
    expect(isInferbenchError(gone) && gone.code).toBe('TARGET_UNREACHABLE');
  });
});
