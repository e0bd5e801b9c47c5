/**
 * Every byte the client benchmark's target server sends, built once: the head of a streamed answer,
 * token events batched k to a write (one HTTP chunk each), the final chunk of a stream of n tokens, a
 * short whole stream (role, 4 tokens, final) in one buffer, the non-streamed answer and the models list.
 * Prebuilt so that a write costs the server no JSON work: the server must never be what is measured.
 */
import { httpChunk, LAST_CHUNK, responseHead } from '../test/helpers/known-timing/http1-framing.js';

const MODEL = 'bench';
const BASE = `"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1767225600,"model":"${MODEL}"`;
/** Each token event carries one token of text (" tok" is one o200k token, so usage checks agree). */
export const TOKEN_EVENT = `data: {${BASE},"choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":null}]}\n\n`;
const ROLE_EVENT = `data: {${BASE},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n`;
/** Tokens of the short streams of the open-loop section. */
export const SHORT_STREAM_TOKENS = 4;

/** The final event of a stream that sent `tokens` tokens: finish_reason and usage. */
export function finalEvent(tokens: number): string {
  const usage = `{"prompt_tokens":16,"completion_tokens":${tokens},"total_tokens":${16 + tokens}}`;
  return `data: {${BASE},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":${usage}}\n\n`;
}

/** `count` token events as one HTTP chunk (one socket write). */
export function tokenBatch(count: number): Buffer {
  return httpChunk(Buffer.from(TOKEN_EVENT.repeat(count), 'utf8'));
}

/** The final event and the chunk that ends the body, as one write. */
export function streamEnd(tokens: number): Buffer {
  return Buffer.concat([httpChunk(Buffer.from(finalEvent(tokens), 'utf8')), LAST_CHUNK]);
}

export const STREAM_HEAD = responseHead(
  '200 OK',
  { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'transfer-encoding': 'chunked' },
  true,
);

/** The role event as the first write of a long stream. */
export const ROLE_CHUNK = httpChunk(Buffer.from(ROLE_EVENT, 'utf8'));

/** A whole short stream (head, role, tokens, final, end) as one write. */
export const SHORT_STREAM = Buffer.concat([
  STREAM_HEAD,
  httpChunk(Buffer.from(ROLE_EVENT + TOKEN_EVENT.repeat(SHORT_STREAM_TOKENS) + finalEvent(SHORT_STREAM_TOKENS))),
  LAST_CHUNK,
]);

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1767225600,
  model: MODEL,
  choices: [
    { index: 0, message: { role: 'assistant', content: 'Hello there, how can I help?' }, finish_reason: 'stop' },
  ],
  usage: { prompt_tokens: 16, completion_tokens: 8, total_tokens: 24 },
});

/** A whole non-streamed answer, head and body, as one write. */
export const WHOLE_ANSWER = Buffer.concat([
  responseHead(
    '200 OK',
    { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(COMPLETION)) },
    true,
  ),
  Buffer.from(COMPLETION, 'utf8'),
]);

export const MODELS_BODY = Buffer.from(JSON.stringify({ object: 'list', data: [{ id: MODEL, object: 'model' }] }));

export const BENCH_MODEL = MODEL;
