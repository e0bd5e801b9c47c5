/**
 * Emulator hardening against request framing that HTTP clients refuse to send (issue 14), over raw
 * sockets: two different Content-Length headers, Content-Length with chunked Transfer-Encoding, a
 * Content-Length list, an invalid one, and a smuggling attempt hidden behind a duplicate. Node's parser
 * rejects each; the emulator answers 400 with the flat error body naming the fault and closes the
 * connection, so nothing after the bad header is ever read as a request. A normal client stays fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import { normalRequestsUnderAttack, report, slowest } from './normal-requests.js';
import { exchangeRaw, firstResponse } from './raw-socket.js';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await createEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const HEAD =
  'POST /v1/chat/completions HTTP/1.1\r\nHost: emulator\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\n';
const BODY = '{"model":"small-fast-8b","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":2}';
const SMUGGLED = 'GET /v1/models HTTP/1.1\r\nHost: emulator\r\nAuthorization: Bearer k\r\n\r\n';

const CASES: readonly (readonly [string, string, RegExp])[] = [
  [
    'two different Content-Lengths',
    `${HEAD}Content-Length: ${BODY.length}\r\nContent-Length: 5\r\n\r\n${BODY}`,
    /Duplicate Content-Length/,
  ],
  [
    'Content-Length with Transfer-Encoding: chunked',
    `${HEAD}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n`,
    /Transfer-Encoding can't be present with Content-Length/,
  ],
  [
    'a Content-Length list "N, 5"',
    `${HEAD}Content-Length: ${BODY.length}, 5\r\n\r\n${BODY}`,
    /Invalid character in Content-Length/,
  ],
  ['a negative Content-Length', `${HEAD}Content-Length: -1\r\n\r\n${BODY}`, /Invalid character in Content-Length/],
  [
    'a request smuggled behind a duplicate Content-Length: 0',
    `${HEAD}Content-Length: 0\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`,
    /Duplicate Content-Length/,
  ],
];

describe('conflicting Content-Length', () => {
  for (const [name, bytes, reason] of CASES) {
    it(`${name}: 400 in the flat error body, connection closed, nothing after it answered`, async () => {
      const outcome = await exchangeRaw(emulator.url, bytes);
      expect(outcome.closedByServer).toBe(true);
      const { status, head, body } = firstResponse(outcome.text);
      expect(status).toBe(400);
      expect(head).toMatch(/\r\ncontent-type: application\/json/i);
      expect(head).toMatch(/\r\nconnection: close/i);
      const error = JSON.parse(body);
      expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(error).toMatchObject({ type: 'invalid_request_error', code: 'wrong_api_format', param: null });
      expect(error.message).toMatch(reason);
      expect(outcome.text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    });
  }

  it('headers over 16 KiB: 431 request_too_large in the flat error body, connection closed', async () => {
    const outcome = await exchangeRaw(
      emulator.url,
      `GET /v1/models HTTP/1.1\r\nHost: e\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(outcome.closedByServer).toBe(true);
    const { status, body } = firstResponse(outcome.text);
    expect(status).toBe(431);
    expect(JSON.parse(body)).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large', param: null });
  });

  it('the same body with one Content-Length is served (the control)', async () => {
    const outcome = await exchangeRaw(
      emulator.url,
      `${HEAD}Content-Length: ${BODY.length}\r\nConnection: close\r\n\r\n${BODY}`,
    );
    expect(firstResponse(outcome.text).status).toBe(200);
    expect(firstResponse(outcome.text).body).toContain('"chat.completion"');
  });

  it('normal requests stay fast while conflicting requests keep coming', async () => {
    let sent = 0;
    const { timings, attacks } = await normalRequestsUnderAttack(
      emulator.url,
      async () => {
        const [, bytes] = CASES[sent++ % CASES.length]!;
        expect(firstResponse((await exchangeRaw(emulator.url, bytes)).text).status).toBe(400);
      },
      8,
    );
    report('conflicting Content-Length', timings, `(${attacks} attacks)`);
    for (const t of timings) expect([t.modelsStatus, t.chatStatus]).toEqual([200, 200]);
    expect(slowest(timings).modelsMs).toBeLessThan(1_000);
    expect(slowest(timings).chatMs).toBeLessThan(1_000);
  });
});
