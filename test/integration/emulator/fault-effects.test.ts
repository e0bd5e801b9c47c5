/**
 * The effect of every FaultPlan kind as the response writer carries it out (the fault injector only
 * decides; here the x-emulator-fault header asks for each kind): errors before headers, an error event
 * or a reset mid-stream after N tokens, stalls before headers and between tokens, slow headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import { asChunk, asStreamError, chat, errorBody, KEY, parseSse, USER } from './support.js';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await createEmulator({ apiKeys: [KEY] });
});
afterAll(() => emulator.close());

const streamBody = { model: 'small-fast-8b', messages: USER, stream: true, max_completion_tokens: 20, seed: 4 };

/** Reads a stream chunk by chunk, noting when each `data:` event arrived (ms since the request). */
async function timedStream(
  fault: string,
): Promise<{ headersMs: number; events: { atMs: number; data: string }[]; error: unknown }> {
  const start = performance.now();
  const res = await fetch(`${emulator.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-emulator-fault': fault },
    body: JSON.stringify(streamBody),
  });
  const headersMs = performance.now() - start;
  const events: { atMs: number; data: string }[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  let error: unknown = null;
  try {
    for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(bytes, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        events.push({ atMs: performance.now() - start, data: buffer.slice(6, end) });
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
      }
    }
  } catch (caught) {
    error = caught;
  }
  return { headersMs, events, error };
}

describe('fault effects', () => {
  it('http_500 and http_503: the error before any header, flat body', async () => {
    const e500 = await chat(emulator.url, streamBody, { headers: { 'x-emulator-fault': 'http_500' } });
    expect(e500.status).toBe(500);
    expect(e500.json).toMatchObject({ type: 'internal_server_error', code: 'internal_error' });
    const e503 = await chat(emulator.url, streamBody, { headers: { 'x-emulator-fault': 'http_503' } });
    expect(e503.status).toBe(503);
    expect(e503.json).toMatchObject({ type: 'service_unavailable_error', code: 'service_unavailable' });
  });

  it('stream_error: N token chunks, then one error event with status_code 500, then the end', async () => {
    const res = await chat(emulator.url, streamBody, { headers: { 'x-emulator-fault': 'stream_error;after=3' } });
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(events).toHaveLength(1 + 3 + 1);
    expect(asChunk(events[0]).choices[0]!.delta.role).toBe('assistant');
    for (const event of events.slice(1, 4)) expect(asChunk(event).choices[0]!.delta.content?.length).toBeGreaterThan(0);
    const last = asStreamError(events[4]);
    expect(last.status_code).toBe(500);
    expect(Object.keys(last.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(res.text).not.toContain('"usage"');
  });

  it('stream_error beyond a short answer still happens, instead of the final chunk', async () => {
    const res = await chat(
      emulator.url,
      { ...streamBody, max_completion_tokens: 3 },
      { headers: { 'x-emulator-fault': 'stream_error;after=50' } },
    );
    const events = parseSse(res.text);
    expect(asStreamError(events[events.length - 1]).status_code).toBe(500);
    expect(res.text).not.toContain('"usage"');
  });

  it('reset: the connection is destroyed after N tokens', async () => {
    const { events, error } = await timedStream('reset;after=2');
    expect(error).not.toBeNull();
    expect(events).toHaveLength(1 + 2);
  });

  it('reset on a non-streaming request: no response at all', async () => {
    await expect(
      chat(emulator.url, { ...streamBody, stream: false }, { headers: { 'x-emulator-fault': 'reset;after=1' } }),
    ).rejects.toThrow();
  });

  it('stall_between_tokens: a pause of at least stallMs after N tokens, then the rest', async () => {
    const { events, error } = await timedStream('stall_between_tokens;after=2;ms=400');
    expect(error).toBeNull();
    const last = JSON.parse(events[events.length - 1]!.data);
    expect(last.usage.completion_tokens).toBe(events.length - 2);
    // events[2] is the second token; the third token comes only after the stall.
    expect(events[3]!.atMs - events[2]!.atMs).toBeGreaterThanOrEqual(380);
  });

  it('stall_before_headers and slow_headers: headers arrive no sooner than stallMs, the stream is complete', async () => {
    for (const kind of ['stall_before_headers', 'slow_headers']) {
      const { headersMs, events, error } = await timedStream(`${kind};ms=400`);
      expect(error, kind).toBeNull();
      expect(headersMs, kind).toBeGreaterThanOrEqual(380);
      const last = JSON.parse(events[events.length - 1]!.data);
      expect(last.usage.completion_tokens, kind).toBe(events.length - 2);
    }
  });

  it('stream_error on a non-streaming request: a 500 error body', async () => {
    const res = await chat(
      emulator.url,
      { ...streamBody, stream: false },
      { headers: { 'x-emulator-fault': 'stream_error;after=2' } },
    );
    expect(res.status).toBe(500);
    expect(errorBody(res).type).toBe('internal_server_error');
  });
});
