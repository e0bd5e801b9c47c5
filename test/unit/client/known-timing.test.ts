/**
 * The known-timing server (test/helpers/known-timing) against the client: the client's TTFT/ITL/E2E agree with what the
 * server really did (generous tolerance here; the precise figures are the accuracy benchmark's job),
 * token counts are exact and time_info passes through exactly.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startKnownTimingServer, type KnownTimingServer } from '../../helpers/known-timing/known-timing-server.js';
import { createInferenceClient } from '../../../src/client/inference-client.js';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import type { InferenceClient } from '../../../src/client/types.js';

const TIME_INFO = {
  queue_time: 0.0123,
  prompt_time: 0.0456789,
  completion_time: 0.1,
  total_time: 0.1579789,
  created: 1_767_225_600.123456,
};

let server: KnownTimingServer | null = null;
let client: InferenceClient | null = null;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = null;
  server = null;
});

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function run(concurrency: number, body: Record<string, unknown>): Promise<RequestRecord[]> {
  const active = client;
  if (active === null) throw new Error('no client');
  return Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const record = createRequestRecord(i, 0, 0);
      await active.send({ body }, record);
      return record;
    }),
  );
}

function clientFor(url: string, concurrency: number): InferenceClient {
  return createInferenceClient({
    baseUrl: url,
    apiKey: null,
    headers: {},
    maxConnections: concurrency,
    timeouts: { connectMs: 5_000, headersMs: 10_000, firstTokenMs: 10_000, idleMs: 10_000, totalMs: 30_000 },
    retry: { maxAttempts: 1, on: [], backoffMs: 0 },
    encoding: { contentType: 'json', gzip: false },
    requestIdHeader: 'x-request-id',
  });
}

describe('known-timing server and client', () => {
  it('agree on TTFT, ITL and E2E; usage and time_info pass through exactly', async () => {
    server = await startKnownTimingServer({ ttftMs: 60, itlMs: 15, tokens: 12, timeInfo: TIME_INFO, doneMarker: true });
    client = clientFor(server.url, 8);
    const body = { model: 'known-timing', messages: [], stream: true };
    // Warm up: the first round pays for connection setup and JIT, which is not what is compared here.
    await run(8, body);
    server.stats.reset();
    const records = await run(8, body);
    for (const r of records) {
      expect(r.errorClass).toBeNull();
      expect(r.tokenChunkTimesUs).toHaveLength(12);
      expect(r.usage?.completion_tokens).toBe(12);
      expect(r.timeInfo).toEqual(TIME_INFO);
      expect(r.outputText).toBe(' tok'.repeat(12));
    }
    const stats = server.stats;
    expect(stats.completed).toBe(8);
    const clientTtft = median(records.map((r) => (r.firstTokenUs - r.sentUs) / 1000));
    const clientE2e = median(records.map((r) => (r.endUs - r.sentUs) / 1000));
    const clientItl = median(
      records.flatMap((r) =>
        r.tokenChunkTimesUs.slice(1).map((t, i) => (t - (r.tokenChunkTimesUs[i] as number)) / 1000),
      ),
    );
    // The server never writes a token early, so neither side can see less than the plan; the precise
    // agreement (within 1 ms) is measured by the accuracy benchmark, here only a loaded-CI tolerance.
    expect(median(stats.ttftMs)).toBeGreaterThanOrEqual(59);
    expect(clientTtft).toBeGreaterThanOrEqual(59);
    expect(Math.abs(clientTtft - median(stats.ttftMs))).toBeLessThan(250);
    expect(Math.abs(clientE2e - median(stats.e2eMs))).toBeLessThan(250);
    expect(Math.abs(clientItl - median(stats.itlMs))).toBeLessThan(10);
  });

  it('serves 256 concurrent streams to the end, each with exact token counts', async () => {
    server = await startKnownTimingServer({ ttftMs: 50, itlMs: 10, tokens: 10, doneMarker: false });
    client = clientFor(server.url, 256);
    const records = await run(256, { model: 'known-timing', messages: [], stream: true });
    expect(records.filter((r) => r.errorClass !== null)).toEqual([]);
    expect(records.every((r) => r.tokenChunkTimesUs.length === 10 && r.usage?.completion_tokens === 10)).toBe(true);
    expect(server.stats.completed).toBe(256);
    expect(server.stats.active).toBe(0);
    expect(Math.min(...server.stats.lateMs)).toBeGreaterThanOrEqual(-0.25);
  });

  it('answers non-streaming requests at the end of the schedule', async () => {
    server = await startKnownTimingServer({ ttftMs: 20, itlMs: 10, tokens: 5 });
    client = clientFor(server.url, 2);
    const [record] = await run(1, { model: 'known-timing', messages: [], stream: false });
    expect(record?.errorClass).toBeNull();
    expect(record?.usage?.completion_tokens).toBe(5);
    expect(((record?.firstTokenUs ?? 0) - (record?.sentUs ?? 0)) / 1000).toBeGreaterThanOrEqual(59);
    expect(await client.listModels()).toEqual(['known-timing']);
  });

  it('speaks plain HTTP/1.1: keep-alive, connection: close, 404, and a 400 that closes for what it cannot read', async () => {
    server = await startKnownTimingServer({ ttftMs: 1, itlMs: 1, tokens: 2 });
    const { port } = new URL(server.url);
    /** Writes `request` on a fresh socket and collects everything until the server closes it or `until` matches. */
    const exchange = (request: string, until: RegExp | null = null): Promise<{ text: string; closed: boolean }> =>
      new Promise((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        const timer = setTimeout(() => {
          socket.destroy();
          resolve({ text, closed: false });
        }, 2_000);
        socket.on('data', (data) => {
          text += data.toString('utf8');
          if (until?.test(text)) {
            clearTimeout(timer);
            socket.destroy();
            resolve({ text, closed: false });
          }
        });
        socket.on('close', () => {
          clearTimeout(timer);
          resolve({ text, closed: true });
        });
        socket.on('error', reject);
        socket.write(request);
      });
    const body = '{"model":"known-timing","messages":[],"stream":true}';
    const post = (connection: string): string =>
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: ${connection}\r\n\r\n${body}`;

    // Two requests on one keep-alive connection, the second sent with the first: answered one after the other.
    const twice = await exchange(post('keep-alive') + post('keep-alive'), /(0\r\n\r\n[\s\S]*){2}/);
    expect(twice.text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
    expect(twice.text.match(/"finish_reason":"length"/g)).toHaveLength(2);
    expect(twice.closed).toBe(false);

    const closing = await exchange(post('close'));
    expect(closing.text).toContain('transfer-encoding: chunked');
    expect(closing.text.endsWith('0\r\n\r\n')).toBe(true);
    expect(closing.closed).toBe(true);

    const models = await exchange('GET /v1/models HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    expect(models.text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(models.text).toContain('"id":"known-timing"');

    const missing = await exchange('GET /nowhere HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    expect(missing.text).toMatch(/^HTTP\/1\.1 404 Not Found/);

    const garbage = await exchange('HELLO THERE\r\n\r\n');
    expect(garbage.text).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(garbage.closed).toBe(true);
    expect(server.stats.completed).toBe(3);
  });
});
