/**
 * Small helpers for the emulator's integration tests: JSON/msgpack/gzip requests over real sockets and
 * a strict SSE parser written apart from the client's decoder (so a framing bug cannot hide by symmetry).
 */
import { gzipSync } from 'node:zlib';
import { encode } from '@msgpack/msgpack';

export const KEY = 'test-inference-key';
export const MGMT_KEY = 'test-management-key';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
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
