/**
 * The emulator's HTTP surface over real sockets: routing, auth for the three kinds of endpoint, body
 * decoding (json, msgpack, gzip, both, wrong ones), the version and queue_threshold headers, error body
 * shape, models, management and tcp_warming.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import type { ManagedEndpoint, ModelList } from '../../../src/protocol/models.js';
import { chat, completionBody, errorBody, jsonBody, KEY, MGMT_KEY, request, USER } from './support.js';

let emulator: Emulator;
let open: Emulator;
const body = { model: 'small-fast-8b', messages: USER, max_completion_tokens: 4 };

beforeAll(async () => {
  emulator = await createEmulator({ apiKeys: [KEY], managementKeys: [MGMT_KEY] });
  open = await createEmulator({});
});
afterAll(async () => {
  await emulator.close();
  await open.close();
});

function expectErrorBody(json: unknown, type: string, code: string | null): void {
  expect(Object.keys(json as object).sort()).toEqual(['code', 'message', 'param', 'type']);
  const error = json as { type: string; code: string | null; message: string };
  expect(error.type).toBe(type);
  expect(error.code).toBe(code);
  expect(error.message).not.toMatch(/\bat .*\.(ts|js):\d+/);
}

describe('routing', () => {
  it('unknown path: 404 not_found with the flat error body', async () => {
    const res = await request(`${emulator.url}/v2/nothing`);
    expect(res.status).toBe(404);
    expectErrorBody(res.json, 'not_found_error', 'not_found');
  });

  it('wrong method: 405 with Allow', async () => {
    const res = await request(`${emulator.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expectErrorBody(res.json, 'invalid_request_error', 'method_not_allowed');
  });

  it('tcp_warming answers 200 without a key', async () => {
    const res = await request(`${emulator.url}/v1/tcp_warming`);
    expect(res.status).toBe(200);
  });
});

describe('auth', () => {
  const inference = [
    ['chat', (key: string | null) => chat(emulator.url, body, { key })],
    [
      'models',
      (key: string | null) =>
        request(`${emulator.url}/v1/models`, key ? { headers: { authorization: `Bearer ${key}` } } : {}),
    ],
    [
      'model',
      (key: string | null) =>
        request(`${emulator.url}/v1/models/small-fast-8b`, key ? { headers: { authorization: `Bearer ${key}` } } : {}),
    ],
    [
      'files',
      (key: string | null) =>
        request(`${emulator.url}/v1/files/x/content`, key ? { headers: { authorization: `Bearer ${key}` } } : {}),
    ],
  ] as const;

  for (const [name, call] of inference) {
    it(`${name}: missing key 401 missing_api_key, wrong key and management key 401 wrong_api_key`, async () => {
      const missing = await call(null);
      expect(missing.status).toBe(401);
      expectErrorBody(missing.json, 'invalid_request_error', 'missing_api_key');
      const wrong = await call('nope');
      expect(wrong.status).toBe(401);
      expectErrorBody(wrong.json, 'invalid_request_error', 'wrong_api_key');
      const management = await call(MGMT_KEY);
      expect(management.status).toBe(401);
      expectErrorBody(management.json, 'invalid_request_error', 'wrong_api_key');
      expect(management.text).not.toContain(MGMT_KEY);
      const ok = await call(KEY);
      expect(ok.status).not.toBe(401);
    });
  }

  it('management: missing 401, wrong 401, inference key refused, management key accepted', async () => {
    const url = `${emulator.url}/management/v1/orgs/local/endpoints`;
    expect((await request(url)).status).toBe(401);
    const wrong = await request(url, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expectErrorBody(wrong.json, 'invalid_request_error', 'wrong_api_key');
    const inferenceKey = await request(url, { headers: { authorization: `Bearer ${KEY}` } });
    expect(inferenceKey.status).toBe(401);
    expect(inferenceKey.text).not.toContain(KEY);
    expect((await request(url, { headers: { authorization: `Bearer ${MGMT_KEY}` } })).status).toBe(200);
  });

  it('public endpoints need no key', async () => {
    expect((await request(`${emulator.url}/public/v1/models`)).status).toBe(200);
    expect((await request(`${emulator.url}/public/v1/models/large-70b`)).status).toBe(200);
  });

  it('with no keys configured any non-empty key works on both kinds, an empty one does not', async () => {
    expect((await chat(open.url, body, { key: 'anything' })).status).toBe(200);
    expect(
      (await request(`${open.url}/management/v1/orgs/local/endpoints`, { headers: { authorization: 'Bearer other' } }))
        .status,
    ).toBe(200);
    expect((await request(`${open.url}/v1/models`, { headers: { authorization: 'Bearer ' } })).status).toBe(401);
  });
});

describe('body decoding', () => {
  it('accepts JSON without a Content-Type', async () => {
    const res = await request(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });
    // fetch labels a string body text/plain: that is not a format the API takes. A Buffer body carries no type.
    expect(res.status).toBe(415);
    const raw = await request(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
      body: Buffer.from(JSON.stringify(body)),
    });
    expect(raw.status).toBe(200);
  });

  it('msgpack, gzip, and msgpack+gzip give the same answer as JSON for the same seed', async () => {
    const seeded = { ...body, seed: 7 };
    const json = await chat(emulator.url, seeded);
    const msgpack = await chat(emulator.url, seeded, { encoding: 'msgpack' });
    const gzip = await chat(emulator.url, seeded, { gzip: true });
    const both = await chat(emulator.url, seeded, { encoding: 'msgpack', gzip: true });
    for (const res of [json, msgpack, gzip, both]) expect(res.status).toBe(200);
    const contentOf = (res: typeof json) => completionBody(res).choices[0]!.message.content;
    const content = contentOf(json);
    expect(content?.length).toBeGreaterThan(0);
    expect(contentOf(msgpack)).toBe(content);
    expect(contentOf(gzip)).toBe(content);
    expect(contentOf(both)).toBe(content);
  });

  it('other content type: 415 unsupported_content_type; other encoding: 415 unsupported_content_encoding', async () => {
    const type = await chat(emulator.url, body, { headers: { 'content-type': 'text/xml' } });
    expect(type.status).toBe(415);
    expectErrorBody(type.json, 'invalid_request_error', 'unsupported_content_type');
    const encoding = await chat(emulator.url, body, { headers: { 'content-encoding': 'br' } });
    expect(encoding.status).toBe(415);
    expectErrorBody(encoding.json, 'invalid_request_error', 'unsupported_content_encoding');
  });

  it('bad JSON, bad msgpack and bad gzip: 400 wrong_api_format', async () => {
    const headers = { authorization: `Bearer ${KEY}` };
    const url = `${emulator.url}/v1/chat/completions`;
    const badJson = await request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect(badJson.status).toBe(400);
    expectErrorBody(badJson.json, 'invalid_request_error', 'wrong_api_format');
    const badMsgpack = await request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/vnd.msgpack' },
      body: Buffer.from([0xc1]),
    });
    expect(badMsgpack.status).toBe(400);
    expectErrorBody(badMsgpack.json, 'invalid_request_error', 'wrong_api_format');
    const badGzip = await request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: Buffer.from('not gzip at all'),
    });
    expect(badGzip.status).toBe(400);
    expectErrorBody(badGzip.json, 'invalid_request_error', 'wrong_api_format');
  });

  it('a gzip bomb beyond the body cap: 413', async () => {
    const bomb = gzipSync(Buffer.alloc(33 * 1024 * 1024, 0x20));
    const res = await request(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(res.status).toBe(413);
    expectErrorBody(res.json, 'invalid_request_error', 'request_too_large');
  });

  it('a body that is not an object: 400', async () => {
    const res = await chat(emulator.url, [1, 2]);
    expect(res.status).toBe(400);
  });
});

describe('headers', () => {
  it('X-Service-Version-Patch: absent and "2" accepted, others 400 invalid_version', async () => {
    expect((await chat(emulator.url, body)).status).toBe(200);
    expect((await chat(emulator.url, body, { headers: { 'x-service-version-patch': '2' } })).status).toBe(200);
    for (const version of ['1', '3', 'latest']) {
      const res = await chat(emulator.url, body, { headers: { 'x-service-version-patch': version } });
      expect(res.status).toBe(400);
      expectErrorBody(res.json, 'invalid_request_error', 'invalid_version');
    }
  });

  it('queue_threshold: 50 and 20000 accepted, 49, 20001 and non-integers 400', async () => {
    const flex = { ...body, service_tier: 'flex' };
    for (const ok of ['50', '20000', '1000'])
      expect((await chat(emulator.url, flex, { headers: { queue_threshold: ok } })).status).toBe(200);
    for (const bad of ['49', '20001', '100.5', 'abc', '-60']) {
      const res = await chat(emulator.url, flex, { headers: { queue_threshold: bad } });
      expect(res.status, bad).toBe(400);
      expect(errorBody(res).param).toBe('queue_threshold');
    }
  });

  it('queue_threshold rejects flex/auto with 429 queue_exceeded when the average queue is above it, not default', async () => {
    const busy = await createEmulator({
      apiKeys: [KEY],
      engine: {
        nowMs: () => performance.now(),
        submit: () => ({ cancel: () => {} }),
        averageQueueMs: () => 500,
        close: () => {},
      },
    });
    try {
      for (const tier of ['flex', 'auto']) {
        const res = await chat(busy.url, { ...body, service_tier: tier }, { headers: { queue_threshold: '100' } });
        expect(res.status).toBe(429);
        expectErrorBody(res.json, 'too_many_requests_error', 'queue_exceeded');
        // Every 429 says when to come back: here the queue's average wait (500 ms), rounded up.
        expect(res.headers.get('retry-after')).toBe('1');
      }
      // Above the average: admitted (this engine never releases a token, so read the status only, then hang up).
      const abort = new AbortController();
      const higher = await fetch(`${busy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', queue_threshold: '1000' },
        body: JSON.stringify({ ...body, service_tier: 'flex', stream: true }),
        signal: abort.signal,
      });
      expect(higher.status).toBe(200);
      abort.abort();
      const plain = await fetch(`${busy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', queue_threshold: '100' },
        body: JSON.stringify({ ...body, service_tier: 'default', stream: true }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(plain.status).toBe(200);
      await plain.body?.cancel();
    } finally {
      await busy.close();
    }
  });

  it('X-Service-3rd-Party-Integration is accepted', async () => {
    expect(
      (await chat(emulator.url, body, { headers: { 'x-service-3rd-party-integration': 'inferbench/test' } })).status,
    ).toBe(200);
  });
});

describe('models', () => {
  const auth = { headers: { authorization: `Bearer ${KEY}` } };

  it('GET /v1/models lists every catalog model as {id, object, created, owned_by}', async () => {
    const res = await request(`${emulator.url}/v1/models`, auth);
    expect(res.status).toBe(200);
    const list = jsonBody<ModelList>(res);
    expect(list.object).toBe('list');
    expect(list.data.map((m) => m.id)).toEqual(emulator.catalog.models.map((m) => m.id));
    for (const model of list.data) {
      expect(Object.keys(model).sort()).toEqual(['created', 'id', 'object', 'owned_by']);
      expect(model.object).toBe('model');
      expect(Number.isInteger(model.created)).toBe(true);
    }
  });

  it('GET /v1/models/{id}: a model, a dedicated endpoint, and 404 model_not_found', async () => {
    const model = await request(`${emulator.url}/v1/models/reasoner-120b`, auth);
    expect(model.json).toMatchObject({ id: 'reasoner-120b', object: 'model' });
    const endpoint = await request(`${emulator.url}/v1/models/ep-large-70b-dedicated`, auth);
    expect(endpoint.json).toMatchObject({ id: 'ep-large-70b-dedicated', owned_by: 'local' });
    const missing = await request(`${emulator.url}/v1/models/no-such-model`, auth);
    expect(missing.status).toBe(404);
    expectErrorBody(missing.json, 'not_found_error', 'model_not_found');
  });

  it('rate-limit headers are on successes and on every error about a known model, none counted', async () => {
    // A key of its own, so that the requests counted here are exactly the successful ones.
    const key = 'rate-limit-headers-key';
    const send = (extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
      chat(open.url, { ...body, model: 'large-70b', ...extra }, { key, headers });
    const first = await send({});
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests-minute')).toBe('1000');
    expect(first.headers.get('x-ratelimit-remaining-requests-minute')).toBe('999');
    const rejected = [
      await send({ temperature: 5 }),
      await send({}, { 'x-emulator-fault': 'http_500' }),
      await send({ stream: true }, { 'x-emulator-fault': 'http_503' }),
      await send({}, { 'x-service-version-patch': '1' }),
      await send({ service_tier: 'flex' }, { queue_threshold: '10' }),
      await send({ service_tier: 'priority' }),
    ];
    expect(rejected.map((r) => r.status)).toEqual([400, 500, 503, 400, 400, 400]);
    for (const res of rejected) {
      expect(res.headers.get('x-ratelimit-limit-tokens-minute')).toBe('1000000');
      // Rejected before admission: nothing counted (the bucket refills ~17 requests/s, so 999 or 1000;
      // six counted rejections would leave it near 993).
      expect(Number(res.headers.get('x-ratelimit-remaining-requests-minute'))).toBeGreaterThanOrEqual(999);
      expect(res.headers.get('x-ratelimit-reset-requests-day')).toMatch(/^\d+(\.\d+)?$/);
    }
    // An in-stream fault of a whole-body answer becomes a 500 after admission, with the headers too.
    const broken = await send({}, { 'x-emulator-fault': 'stream_error;after=1' });
    expect(broken.status).toBe(500);
    expect(broken.headers.get('x-ratelimit-limit-requests-minute')).toBe('1000');
    // flex has buckets of its own.
    const flexFault = await send({ service_tier: 'flex' }, { 'x-emulator-fault': 'http_500' });
    expect(flexFault.headers.get('x-ratelimit-remaining-requests-minute')).toBe('1000');
  });

  it('chat with an unknown model: 404 model_not_found, without rate-limit headers (no limits to report)', async () => {
    const res = await chat(emulator.url, { ...body, model: 'misspelled-8b' });
    expect(res.status).toBe(404);
    expectErrorBody(res.json, 'not_found_error', 'model_not_found');
    expect([...res.headers.keys()].filter((name) => name.startsWith('x-ratelimit-'))).toEqual([]);
    // A bad header is still answered first, whatever the model.
    const version = await chat(
      emulator.url,
      { ...body, model: 'misspelled-8b' },
      { headers: { 'x-service-version-patch': '9' } },
    );
    expect(version.status).toBe(400);
    expect(errorBody(version).code).toBe('invalid_version');
  });
});

describe('management', () => {
  const auth = { headers: { authorization: `Bearer ${MGMT_KEY}` } };

  it('lists the org endpoints with every field and type; each id works as a chat model', async () => {
    const res = await request(`${emulator.url}/management/v1/orgs/local/endpoints`, auth);
    expect(res.status).toBe(200);
    const { endpoints } = jsonBody<{ endpoints: ManagedEndpoint[] }>(res);
    expect(endpoints.length).toBeGreaterThan(0);
    for (const endpoint of endpoints) {
      expect(Object.keys(endpoint).sort()).toEqual(['created', 'endpoint_id', 'model_arch_id', 'org_name', 'updated']);
      expect(typeof endpoint.endpoint_id).toBe('string');
      expect(typeof endpoint.model_arch_id).toBe('string');
      expect(Number.isInteger(endpoint.created)).toBe(true);
      expect(Number.isInteger(endpoint.updated)).toBe(true);
      expect(endpoint.org_name).toBe('local');
      const completion = await chat(emulator.url, { ...body, model: endpoint.endpoint_id, service_tier: 'auto' });
      expect(completion.status).toBe(200);
      expect(completionBody(completion).model).toBe(endpoint.endpoint_id);
      // auto on a dedicated endpoint takes the highest tier there is.
      expect(completionBody(completion).service_tier_used).toBe('priority');
    }
  });

  it('auto on a shared model runs in default', async () => {
    const res = await chat(emulator.url, { ...body, service_tier: 'auto' });
    expect(completionBody(res).service_tier_used).toBe('default');
    const none = await chat(emulator.url, body);
    expect(completionBody(none).service_tier_used).toBeUndefined();
  });

  it('unknown org: 404', async () => {
    const res = await request(`${emulator.url}/management/v1/orgs/someone-else/endpoints`, auth);
    expect(res.status).toBe(404);
    expectErrorBody(res.json, 'not_found_error', 'org_not_found');
  });
});
