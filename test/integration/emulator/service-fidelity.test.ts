/**
 * The emulator against what the real service was observed to do (issue 14, item 1), over real sockets:
 * `x-ratelimit-*` headers on every answer about a served model, unlimited ones and dedicated endpoints
 * included, in the minute, hour and day families; a `deprecated: true` model answers the spec's 404;
 * error `param` values (401 `api_key`, 429 `quota`, queue rejection `queue`); `service_tier_used` only for
 * `auto`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalogConfig } from '../../../src/emulator/catalog/config-file.js';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import { UNLIMITED_RATE_LIMIT } from '../../../src/emulator/rate-limit/bucket-rate-limiter.js';
import type { ModelList, PublicModel } from '../../../src/protocol/models.js';
import {
  asChunk,
  chat,
  completionBody,
  errorBody,
  jsonBody,
  KEY,
  MGMT_KEY,
  parseSse,
  request,
  USER,
  type RawResponse,
} from './support.js';

const CONFIG = `
models:
  - id: large-70b
    deprecated: true
  - id: one-a-minute
    based_on: small-fast-8b
    limits: { requests_per_minute: 1, tokens_per_minute: 1000000 }
  - id: few-tokens
    based_on: small-fast-8b
    limits: { requests_per_minute: 1000, tokens_per_minute: 100 }
  - id: limited
    based_on: small-fast-8b
    limits: { requests_per_minute: 600, tokens_per_minute: 50000 }
`;

let builtin: Emulator;
let configured: Emulator;
const auth = { headers: { authorization: `Bearer ${KEY}` } };

beforeAll(async () => {
  builtin = await createEmulator({ apiKeys: [KEY], managementKeys: [MGMT_KEY] });
  // Any key: the rate-limit tests count against keys of their own.
  configured = await createEmulator({ catalog: parseCatalogConfig(CONFIG, 'fidelity.yaml', 'local') });
});
afterAll(async () => {
  await builtin.close();
  await configured.close();
});

const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: USER,
  max_completion_tokens: 3,
  ...extra,
});

const RESOURCES = ['requests', 'tokens'] as const;
const WINDOWS = ['minute', 'hour', 'day'] as const;

function rateLimitHeaders(res: RawResponse): Record<string, string> {
  return Object.fromEntries([...res.headers.entries()].filter(([name]) => name.startsWith('x-ratelimit-')));
}

function expectUnlimited(res: RawResponse): void {
  const expected: Record<string, string> = {};
  for (const resource of RESOURCES)
    for (const window of WINDOWS) {
      expected[`x-ratelimit-limit-${resource}-${window}`] = String(UNLIMITED_RATE_LIMIT);
      expected[`x-ratelimit-remaining-${resource}-${window}`] = String(UNLIMITED_RATE_LIMIT);
      expected[`x-ratelimit-reset-${resource}-${window}`] = '0';
    }
  expect(rateLimitHeaders(res)).toEqual(expected);
}

describe('x-ratelimit-* headers', () => {
  it('a model with unlimited (null) limits reports every family as very large, streamed or not', async () => {
    const plain = await chat(builtin.url, ask('small-fast-8b'));
    expect(plain.status).toBe(200);
    expectUnlimited(plain);
    const streamed = await chat(builtin.url, ask('small-fast-8b', { stream: true }));
    expect(streamed.status).toBe(200);
    expectUnlimited(streamed);
    // A rejection about the model carries them too.
    const rejected = await chat(builtin.url, ask('small-fast-8b', { temperature: 7 }));
    expect(rejected.status).toBe(400);
    expectUnlimited(rejected);
  });

  it('a dedicated endpoint reports itself unlimited on every answer', async () => {
    const ok = await chat(builtin.url, ask('ep-large-70b-dedicated', { service_tier: 'priority' }));
    expect(ok.status).toBe(200);
    expectUnlimited(ok);
    const faulted = await chat(builtin.url, ask('ep-large-70b-dedicated'), {
      headers: { 'x-emulator-fault': 'http_500' },
    });
    expect(faulted.status).toBe(500);
    expectUnlimited(faulted);
  });

  it('a limited model reports minute, hour and day for both resources, all counted', async () => {
    const key = 'hour-family-key';
    const first = await chat(configured.url, ask('limited'), { key });
    const second = await chat(configured.url, ask('limited'), { key });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const headers = rateLimitHeaders(second);
    expect(Object.keys(headers)).toHaveLength(18);
    expect(headers['x-ratelimit-limit-requests-minute']).toBe('600');
    expect(headers['x-ratelimit-limit-requests-hour']).toBe(String(600 * 60));
    expect(headers['x-ratelimit-limit-requests-day']).toBe(String(600 * 1440));
    expect(headers['x-ratelimit-limit-tokens-hour']).toBe(String(50_000 * 60));
    // Two requests taken; at 10 a second the minute bucket gets at most a few back between them.
    expect(Number(headers['x-ratelimit-remaining-requests-hour'])).toBeLessThanOrEqual(600 * 60 - 1);
    expect(Number(headers['x-ratelimit-remaining-requests-hour'])).toBeGreaterThanOrEqual(600 * 60 - 2);
    // Each request reserves its prompt + 3 tokens from every token window alike.
    const tokensTaken = (window: string) =>
      Number(headers[`x-ratelimit-limit-tokens-${window}`]) - Number(headers[`x-ratelimit-remaining-tokens-${window}`]);
    expect(tokensTaken('hour')).toBeGreaterThan(6);
    expect(Math.abs(tokensTaken('hour') - tokensTaken('day'))).toBeLessThanOrEqual(1);
    expect(Number(headers['x-ratelimit-reset-tokens-hour'])).toBeGreaterThan(0);
  });
});

describe('a model configured deprecated: true', () => {
  it('answers chat with the spec 404 (not_found_error / model_not_found), saying it is deprecated', async () => {
    const res = await chat(configured.url, ask('large-70b'));
    expect(res.status).toBe(404);
    const error = errorBody(res);
    expect(error).toMatchObject({ type: 'not_found_error', code: 'model_not_found', param: 'model' });
    expect(error.message).toContain('deprecated');
    // Nothing about a model that is not served: no limits to report.
    expect(rateLimitHeaders(res)).toEqual({});
  });

  it('is left out of /v1/models and not retrievable there, but stays in the public catalog marked deprecated', async () => {
    const list = jsonBody<ModelList>(await request(`${configured.url}/v1/models`, auth));
    const ids = list.data.map((m) => m.id);
    expect(ids).not.toContain('large-70b');
    expect(ids).toContain('small-fast-8b');
    const retrieved = await request(`${configured.url}/v1/models/large-70b`, auth);
    expect(retrieved.status).toBe(404);
    expect(errorBody(retrieved)).toMatchObject({ code: 'model_not_found', param: 'model_id' });
    const publicModel = jsonBody<PublicModel>(await request(`${configured.url}/public/v1/models/large-70b`));
    expect(publicModel.deprecated).toBe(true);
  });

  it('keeps serving a dedicated endpoint built on it (a deployment of its own)', async () => {
    const res = await chat(configured.url, ask('ep-large-70b-dedicated'));
    expect(res.status).toBe(200);
    expect(completionBody(res).model).toBe('ep-large-70b-dedicated');
  });
});

describe('error param values', () => {
  it('401 says param api_key, for a missing and for a wrong key, on inference and management endpoints', async () => {
    const missing = await chat(builtin.url, ask('small-fast-8b'), { key: null });
    const wrong = await chat(builtin.url, ask('small-fast-8b'), { key: 'not-the-key' });
    const models = await request(`${builtin.url}/v1/models`);
    const management = await request(`${builtin.url}/management/v1/orgs/local/endpoints`, auth);
    for (const res of [missing, wrong, models, management]) {
      expect(res.status).toBe(401);
      expect(errorBody(res).param).toBe('api_key');
    }
    expect(errorBody(missing).code).toBe('missing_api_key');
    expect(errorBody(wrong).code).toBe('wrong_api_key');
  });

  it('429 for requests and for tokens says param quota', async () => {
    const key = 'quota-param-key';
    expect((await chat(configured.url, ask('one-a-minute'), { key })).status).toBe(200);
    const requests = await chat(configured.url, ask('one-a-minute'), { key });
    expect(requests.status).toBe(429);
    expect(errorBody(requests)).toMatchObject({
      type: 'too_many_requests_error',
      code: 'request_quota_exceeded',
      param: 'quota',
    });
    // 100 tokens a minute: the first request (prompt + 50 reserved) fits, the second does not.
    const fewTokens = ask('few-tokens', { max_completion_tokens: 50 });
    expect((await chat(configured.url, fewTokens, { key })).status).toBe(200);
    const tokens = await chat(configured.url, fewTokens, { key });
    expect(tokens.status).toBe(429);
    expect(errorBody(tokens)).toMatchObject({
      type: 'too_many_tokens_error',
      code: 'token_quota_exceeded',
      param: 'quota',
    });
  });

  it('a queue_threshold rejection says param queue', async () => {
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
      const res = await chat(busy.url, ask('small-fast-8b', { service_tier: 'flex' }), {
        headers: { queue_threshold: '100' },
      });
      expect(res.status).toBe(429);
      expect(errorBody(res)).toMatchObject({ type: 'too_many_requests_error', code: 'queue_exceeded', param: 'queue' });
    } finally {
      await busy.close();
    }
  });
});

describe('service_tier_used', () => {
  it('is reported for auto only: absent when no tier or a named tier was asked', async () => {
    const tierUsed = async (model: string, tier: string | undefined) => {
      const res = await chat(builtin.url, ask(model, tier === undefined ? {} : { service_tier: tier }));
      expect(res.status, `${model} ${tier}`).toBe(200);
      return completionBody(res).service_tier_used;
    };
    expect(await tierUsed('small-fast-8b', undefined)).toBeUndefined();
    expect(await tierUsed('small-fast-8b', 'default')).toBeUndefined();
    expect(await tierUsed('small-fast-8b', 'flex')).toBeUndefined();
    expect(await tierUsed('ep-large-70b-dedicated', 'priority')).toBeUndefined();
    expect(await tierUsed('small-fast-8b', 'auto')).toBe('default');
    expect(await tierUsed('ep-large-70b-dedicated', 'auto')).toBe('priority');
  });

  it('streams it on every chunk for auto and on none for a named tier', async () => {
    const chunksOf = async (tier: string) => {
      const res = await chat(builtin.url, ask('ep-large-70b-dedicated', { stream: true, service_tier: tier }));
      expect(res.status).toBe(200);
      return parseSse(res.text).map(asChunk);
    };
    const auto = await chunksOf('auto');
    expect(auto.length).toBeGreaterThan(2);
    for (const chunk of auto) expect(chunk.service_tier_used).toBe('priority');
    for (const chunk of await chunksOf('flex')) expect(chunk.service_tier_used).toBeUndefined();
  });
});
