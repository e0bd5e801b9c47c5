/**
 * A server on 127.0.0.1 port 0 that echoes the bearer key it receives everywhere a careless service
 * could: in response headers (`x-request-id` too), in 4xx and 5xx error bodies (message, param and
 * code), in an in-stream error event, and in the response `id` (streamed or not). The secrets tests run the harness
 * against it and then search every output for the key.
 *
 *     const server = await startKeyEchoServer();
 *     // run a profile against server.url with INFERENCE_API_KEY=K; K must appear in no output
 *     await server.close();
 */
import type { ServerResponse } from 'node:http';
import { chunk, playScript, sendJson, sseData, startTestServer } from './fault-servers.js';
import type { CapturedRequest, TestServer } from './fault-servers.js';

/** The answers, in turn (request i gets `ECHO_ANSWERS[i % length]`). */
export const ECHO_ANSWERS = ['stream-ok', 'http-401', 'http-500', 'http-429', 'stream-error', 'http-400'] as const;

export type EchoAnswer = (typeof ECHO_ANSWERS)[number];

/** The key as sent: whatever follows "Bearer " in the authorization header. */
function keyOf(req: CapturedRequest): string {
  const header = req.headers.authorization ?? '';
  return header.replace(/^bearer\s+/i, '');
}

/** Headers that carry the key: a request id, a debug echo, and a rate-limit header the harness reads. */
function echoHeaders(key: string): Record<string, string> {
  return {
    'x-request-id': `req-${key}`,
    'x-echo-authorization': `Bearer ${key}`,
    'x-ratelimit-remaining-requests-minute': '100',
    'x-debug-key': key,
  };
}

function errorBody(key: string, type: string): Record<string, unknown> {
  return { message: `Invalid key ${key} (Bearer ${key})`, type, param: key, code: `key_${key}` };
}

/** The JSON reply (status and body) of an answer given as a whole; null for a stream. */
function jsonReply(kind: EchoAnswer, key: string, streaming: boolean): { status: number; body: unknown } | null {
  if (kind === 'http-401') return { status: 401, body: errorBody(key, 'invalid_request_error') };
  if (kind === 'http-500') return { status: 500, body: { error: errorBody(key, 'server_error') } };
  if (kind === 'http-400') return { status: 400, body: errorBody(key, 'invalid_request_error') };
  if (kind === 'http-429') return { status: 429, body: errorBody(key, 'too_many_requests_error') };
  if (streaming) return null;
  if (kind === 'stream-error') return { status: 503, body: { error: errorBody(key, 'server_error') } };
  const usage = { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 };
  const choices = [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }];
  return {
    status: 200,
    body: { id: `chatcmpl-${key}`, object: 'chat.completion', model: 'echo-model', usage, choices },
  };
}

function answer(kind: EchoAnswer, key: string, streaming: boolean, res: ServerResponse): void {
  const headers = { ...echoHeaders(key), ...(kind === 'http-429' ? { 'retry-after': '0' } : {}) };
  const reply = jsonReply(kind, key, streaming);
  if (reply !== null) {
    sendJson(res, reply.status, reply.body, headers);
    return;
  }
  const role = { write: sseData(chunk({ role: 'assistant', content: '' }, null, { id: `chatcmpl-${key}` })) };
  const text = { write: sseData(chunk({ content: 'Hello' }, null, { id: `chatcmpl-${key}` })) };
  const end =
    kind === 'stream-ok'
      ? sseData(chunk({}, 'stop', { usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } }))
      : sseData({ error: errorBody(key, 'server_error'), status_code: 500 });
  playScript(res, [role, text, { write: end }, { end: true }], 200, headers);
}

/** Starts the server; `GET /v1/models` lists `echo-model` (with the key in the headers). */
export function startKeyEchoServer(): Promise<TestServer> {
  let chatIndex = 0;
  return startTestServer((req, res) => {
    const key = keyOf(req);
    if (!req.url.includes('/chat/completions')) {
      sendJson(
        res,
        200,
        { object: 'list', data: [{ id: 'echo-model', object: 'model', owned_by: 'test' }] },
        echoHeaders(key),
      );
      return;
    }
    const streaming = !req.body.toString('utf8').includes('"stream":false');
    answer(ECHO_ANSWERS[chatIndex++ % ECHO_ANSWERS.length]!, key, streaming, res);
  });
}
