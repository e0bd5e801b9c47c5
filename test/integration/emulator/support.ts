/**
 * Small helpers for the emulator's integration tests: JSON/msgpack/gzip requests over real sockets and
 * a strict SSE parser written apart from the client's decoder (so a framing bug cannot hide by symmetry).
 */
import { gzipSync } from 'node:zlib';
import { encode } from '@msgpack/msgpack';
import type { ChatCompletionChunk, ChatCompletionResponse } from '../../../src/protocol/chat.js';
import type { ApiErrorBody, StreamErrorEvent } from '../../../src/protocol/errors.js';

export const KEY = 'test-inference-key';
export const MGMT_KEY = 'test-management-key';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON: narrow it with the helpers below. */
  json: unknown;
}

export async function request(url: string, init: RequestInit = {}): Promise<RawResponse> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export interface PostOptions {
  key?: string | null;
  headers?: Record<string, string>;
  encoding?: 'json' | 'msgpack';
  gzip?: boolean;
}

/** POST /v1/chat/completions with the inference key unless told otherwise. */
export function chat(baseUrl: string, body: unknown, options: PostOptions = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? KEY : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let bytes: Uint8Array = options.encoding === 'msgpack' ? encode(body) : Buffer.from(JSON.stringify(body));
  if (options.encoding === 'msgpack') headers['content-type'] ??= 'application/vnd.msgpack';
  else headers['content-type'] ??= 'application/json';
  if (options.gzip) {
    bytes = gzipSync(bytes);
    headers['content-encoding'] = 'gzip';
  }
  return request(`${baseUrl}/v1/chat/completions`, { method: 'POST', headers, body: bytes });
}

export const USER = [{ role: 'user', content: 'Say something.' }];

/**
 * Parses a raw SSE body strictly: every event is exactly one `data: ` line followed by a blank line,
 * nothing else. Returns the payloads (JSON parsed, `[DONE]` kept as the string).
 */
export function parseSse(raw: string): unknown[] {
  if (!raw.endsWith('\n\n'))
    throw new Error(`stream does not end with a blank line: ${JSON.stringify(raw.slice(-40))}`);
  const events = raw.slice(0, -2).split('\n\n');
  return events.map((event) => {
    if (!event.startsWith('data: ') || event.includes('\n'))
      throw new Error(`bad event framing: ${JSON.stringify(event.slice(0, 80))}`);
    const payload = event.slice('data: '.length);
    return payload === '[DONE]' ? payload : JSON.parse(payload);
  });
}

/** What the body helpers need of a response: its status (for messages) and its parsed body. */
export type ParsedResponse = Pick<RawResponse, 'status' | 'json'>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const preview = (value: unknown): string => String(JSON.stringify(value)).slice(0, 200);

/**
 * The body as the JSON object type the test expects (a catalog, a listing...). Only checks that it is
 * an object: the test asserts the fields it reads.
 */
export function jsonBody<T extends object>(res: ParsedResponse): T {
  if (!isRecord(res.json)) throw new Error(`expected a JSON object body (status ${res.status}): ${preview(res.json)}`);
  return res.json as T;
}

/** The body as a chat completion (`object: "chat.completion"`), failing the test when it is anything else. */
export function completionBody(res: ParsedResponse): ChatCompletionResponse {
  const json = res.json;
  if (!isRecord(json) || json.object !== 'chat.completion')
    throw new Error(`expected a chat completion (status ${res.status}): ${preview(json)}`);
  return json as unknown as ChatCompletionResponse;
}

/** The flat error body (message, type, param, code), failing the test when the body is not one. */
export function errorBody(res: ParsedResponse): ApiErrorBody {
  const json = res.json;
  if (!isRecord(json) || typeof json.message !== 'string' || typeof json.type !== 'string' || !('code' in json))
    throw new Error(`expected an error body (status ${res.status}): ${preview(json)}`);
  return json as unknown as ApiErrorBody;
}

export function isChunk(event: unknown): event is ChatCompletionChunk {
  return isRecord(event) && event.object === 'chat.completion.chunk' && Array.isArray(event.choices);
}

export function isStreamError(event: unknown): event is StreamErrorEvent {
  return isRecord(event) && isRecord(event.error) && typeof event.status_code === 'number';
}

/** A stream event that must be a chunk, failing the test when it is anything else. */
export function asChunk(event: unknown): ChatCompletionChunk {
  if (!isChunk(event)) throw new Error(`expected a chat.completion.chunk event: ${preview(event)}`);
  return event;
}

/** A stream event that must be an in-stream error event, failing the test when it is anything else. */
export function asStreamError(event: unknown): StreamErrorEvent {
  if (!isStreamError(event)) throw new Error(`expected an in-stream error event: ${preview(event)}`);
  return event;
}
