/**
 * Emulator hardening against hostile request bodies (issue 14): deeply nested JSON, a body of millions of
 * tiny values, invalid UTF-8, a gzip bomb (1 GiB of zeros) and hostile MessagePack (oversized, a map
 * claiming 2^32 entries, millions of empty maps, deep nesting, bad UTF-8). Each is answered with a 4xx in
 * the flat error body, and a normal client's models listing and small chat completion stay fast while
 * the attacks are in flight (bound: 1 s, far above the tens of ms measured, so a loaded machine passes).
 * Runs the built binary (dist/: `npm test` builds it first).
 */
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { encode } from '@msgpack/msgpack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorProcess, startEmulatorProcess } from '../../helpers/emulator-process.js';
import { errorBody, request, type RawResponse } from '../emulator/support.js';
import {
  DEFAULT_SERVER_TIMEOUTS,
  resolveServerTimeouts,
  serverTimeoutOptions,
} from '../../../src/emulator/http/server-timeouts.js';
import { exchangeRaw, firstResponse } from './raw-socket.js';
import { normalRequestsUnderAttack, report, slowest, type NormalTiming } from './normal-requests.js';

const NORMAL_BOUND_MS = 1_000;
// Its own process (the built binary), so the attackers' work in this process is not timed as the emulator's.
let emulator: EmulatorProcess;

beforeAll(async () => {
  emulator = await startEmulatorProcess();
});
afterAll(async () => {
  expect(await emulator.stop()).toBe(0);
});

function post(body: Uint8Array | string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return request(`${emulator.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer hostile', 'content-type': 'application/json', ...headers },
    body,
  });
}

/** Fails unless `res` is the flat error body with this status and a message matching `message`. */
function expectRejected(res: RawResponse, status: number, message: RegExp, code = 'wrong_api_format'): void {
  expect(res.status, res.text.slice(0, 300)).toBe(status);
  expect(Object.keys(res.json as object).sort()).toEqual(['code', 'message', 'param', 'type']);
  const error = errorBody(res);
  expect(error.type).toBe('invalid_request_error');
  expect(error.code).toBe(code);
  expect(error.message).toMatch(message);
}

function expectFast(name: string, timings: readonly NormalTiming[], extra: string): void {
  report(name, timings, extra);
  for (const t of timings) expect([t.modelsStatus, t.chatStatus]).toEqual([200, 200]);
  const { modelsMs, chatMs } = slowest(timings);
  expect(modelsMs).toBeLessThan(NORMAL_BOUND_MS);
  expect(chatMs).toBeLessThan(NORMAL_BOUND_MS);
}

describe('defaults', () => {
  it('keep-alive 65 s (announced by the binary), headers 60 s, request 300 s, checked every second', async () => {
    const outcome = await exchangeRaw(emulator.url, 'GET /v1/tcp_warming HTTP/1.1\r\nHost: e\r\n\r\n', 500);
    expect(firstResponse(outcome.text).head).toMatch(/\r\nKeep-Alive: timeout=65(\r\n|$)/i);
    expect(DEFAULT_SERVER_TIMEOUTS).toEqual({
      keepAliveTimeoutMs: 65_000,
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 300_000,
    });
    expect(serverTimeoutOptions(resolveServerTimeouts())).toEqual({
      headersTimeout: 60_000,
      requestTimeout: 300_000,
      connectionsCheckingInterval: 1_000,
    });
  });
});

const chatWith = (messages: string): string =>
  `{"model":"small-fast-8b","max_completion_tokens":2,"messages":${messages}}`;

describe('deeply nested JSON', () => {
  it('a 100,000-deep [[[[...]]]] body is a 400 naming the depth limit, and normal requests stay fast meanwhile', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const inside = chatWith(deep);
    const started = performance.now();
    let sent = 0;
    const { timings, attacks } = await normalRequestsUnderAttack(
      emulator.url,
      async () => expectRejected(await post(sent++ % 2 === 0 ? deep : inside), 400, /deeper than 128 levels/),
      8,
    );
    expectFast('100k-deep JSON', timings, `(${attacks} attacks in ${(performance.now() - started).toFixed(0)} ms)`);
    expect(attacks).toBeGreaterThanOrEqual(8);
  });

  it('the limit is 128 levels: 128 passes the depth check (another 400), 129 does not', async () => {
    const nested = (depth: number): string =>
      chatWith(`[{"role":"user","content":${'['.repeat(depth - 3)}${']'.repeat(depth - 3)}}]`);
    const at128 = await post(nested(128));
    expect(at128.status).toBe(400);
    expect(errorBody(at128).message).not.toMatch(/deeper than/);
    expectRejected(await post(nested(129)), 400, /deeper than 128 levels/);
  });
});

describe('a body of millions of tiny values', () => {
  it('32 MiB of {}, (11 million objects, 17 s of JSON.parse) is a 400 at once, and normal requests stay fast', async () => {
    const values = Buffer.from(`[${'{},'.repeat(10_000_000)}{}]`);
    const { timings, attacks } = await normalRequestsUnderAttack(
      emulator.url,
      async () => {
        const started = performance.now();
        expectRejected(await post(values), 400, /more than 100000 values/);
        expect(performance.now() - started).toBeLessThan(5_000);
      },
      2,
    );
    expectFast('30 MB of {} values', timings, `(${attacks} attacks)`);
  });
});

describe('invalid UTF-8 in a JSON body', () => {
  const withContent = (bytes: number[]): Buffer =>
    Buffer.concat([
      Buffer.from(chatWith('[{"role":"user","content":"abc')),
      Buffer.from(bytes),
      Buffer.from('"}]').subarray(0, 3),
      Buffer.from('}'),
    ]);

  it('a valid multi-byte character is accepted (the control)', async () => {
    const body = Buffer.concat([Buffer.from(chatWith('[{"role":"user","content":"caf')), Buffer.from('é"}]}')]);
    expect((await post(body)).status).toBe(200);
  });

  for (const [name, bytes] of [
    ['a lone 0xff byte', [0xff]],
    ['a truncated sequence', [0xc3]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded UTF-16 surrogate', [0xed, 0xa0, 0x80]],
  ] as const) {
    it(`${name}: 400 "not valid UTF-8" (not silently replaced by U+FFFD)`, async () => {
      expectRejected(await post(withContent([...bytes])), 400, /not valid UTF-8/);
    });
  }
});

/**
 * 1 GiB of zeros as a gzip stream: 1,024 gzip members of 1 MiB each (gunzip reads concatenated members),
 * about 1 MB in all, as 16 members of 64 MiB were; compressing one 1 MiB member takes a few ms of this
 * process, 64 MiB about 0.35 s.
 */
function gzipBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: 1024 }, () => member));
}

describe('gzip bomb', () => {
  it('1 GiB of zeros in a ~1 MB gzip body is a 413 at the 32 MiB limit, as JSON and as msgpack, and memory stays bounded', async () => {
    const bomb = gzipBomb();
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const { timings, attacks } = await normalRequestsUnderAttack(
      emulator.url,
      async () => {
        const type = Math.random() < 0.5 ? 'application/json' : 'application/vnd.msgpack';
        const res = await post(bomb, { 'content-encoding': 'gzip', 'content-type': type });
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
        expectRejected(res, 413, /exceeds 33554432 bytes/, 'request_too_large');
      },
      4,
    );
    const growthMb = (peakRss - rssBefore) / 1e6;
    expectFast(
      'gzip bomb (1 GiB of zeros)',
      timings,
      `(${attacks} bombs of ${bomb.length} bytes, rss +${growthMb.toFixed(0)} MB)`,
    );
    // Four bombs inflated in full would take 4 GiB; capped, each holds at most 32 MiB.
    expect(growthMb).toBeLessThan(1_000);
  });
});

/** POSTs `bytes` with chunked transfer encoding (no Content-Length), as a streaming client would. */
function postChunked(bytes: Buffer, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer hostile', ...headers },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (text: string) => (body += text));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The server answers 413 and may close before the upload ends: that is the point, not a failure.
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    for (let at = 0; at < bytes.length; at += 1024 * 1024) req.write(bytes.subarray(at, at + 1024 * 1024));
    req.end();
  });
}

describe('hostile MessagePack', () => {
  const msgpack = { 'content-type': 'application/vnd.msgpack' };

  it('a valid msgpack body is still served (the control)', async () => {
    const body = encode({
      model: 'small-fast-8b',
      messages: [{ role: 'user', content: 'hé' }],
      max_completion_tokens: 2,
    });
    expect((await post(body, msgpack)).status).toBe(200);
  });

  it('an oversized body (40 MiB bin) is a 413, with or without Content-Length', async () => {
    // encode({ model, blob: 40 MiB of zeros }) written by hand (encode copies the 40 MiB, a third of a second):
    // the map with an empty bin 8 (0xc4 0x00) whose last two bytes become a bin 32 header of 40 MiB.
    const head = encode({ model: 'small-fast-8b', blob: new Uint8Array(0) });
    expect([...head.subarray(-2)]).toEqual([0xc4, 0x00]);
    const oversized = Buffer.alloc(head.length - 2 + 5 + 40 * 1024 * 1024);
    oversized.set(head.subarray(0, -2));
    oversized[head.length - 2] = 0xc6;
    oversized.writeUInt32BE(40 * 1024 * 1024, head.length - 1);
    expectRejected(await post(oversized, msgpack), 413, /exceeds 33554432 bytes/, 'request_too_large');
    const chunked = await postChunked(oversized, msgpack);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).code).toBe('request_too_large');
  });

  it('a map or array claiming 2^32 entries in 8 bytes is a 400 at once', async () => {
    const map = Buffer.from([0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 0x61, 0x01]);
    const array = Buffer.from([0xdd, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02, 0x03]);
    expectRejected(await post(map, msgpack), 400, /declares 8589934590 items but only 3 bytes follow/);
    expectRejected(await post(array, msgpack), 400, /declares 4294967295 items but only 3 bytes follow/);
  });

  it('30 MiB of empty maps (27 s and 2 GB to decode) is a 400 at once, and normal requests stay fast', async () => {
    const count = 30 * 1024 * 1024;
    const maps = Buffer.alloc(5 + count, 0x80);
    maps[0] = 0xdd;
    maps.writeUInt32BE(count, 1);
    const { timings, attacks } = await normalRequestsUnderAttack(
      emulator.url,
      async () => expectRejected(await post(maps, msgpack), 400, /more than 100000 values/),
      2,
    );
    expectFast('30 MiB of msgpack empty maps', timings, `(${attacks} attacks)`);
  });

  it('100,000-deep nesting, a string of invalid UTF-8 and trailing bytes are 400s', async () => {
    const deep = Buffer.alloc(100_001, 0x91);
    deep[100_000] = 0xc0;
    expectRejected(await post(deep, msgpack), 400, /deeper than 128 levels/);
    const badString = Buffer.from([0x81, 0xa5, ...Buffer.from('model'), 0xa2, 0xff, 0xfe]);
    expectRejected(await post(badString, msgpack), 400, /string at offset 7 is not valid UTF-8/);
    const trailing = Buffer.concat([Buffer.from(encode({ model: 'small-fast-8b' })), Buffer.from([0xc0])]);
    expectRejected(await post(trailing, msgpack), 400, /1 bytes follow the value/);
  });
});
