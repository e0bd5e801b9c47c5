/**
 * The emulator under load, observed by a real client over a socket: tier-ordered queueing, `auto`,
 * rate-limit headers and 429s, queue_threshold, the prompt cache, every fault mode, and time_info
 * against what the client measures. One in-process emulator with a catalog made for these tests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import { parseCatalogConfig } from '../../../src/emulator/catalog/config-file.js';
import { asChunk, asStreamError, completionBody, errorBody, isChunk } from '../emulator/support.js';

const CONFIG = `
models:
  - id: tiny-limits
    based_on: small-fast-8b
    limits: { requests_per_minute: 60, tokens_per_minute: 6000 }
    # Quick answers: the token budget refills 100 tokens/s, which must not cover the 429 test's shortfall.
    capacity: { decode_tokens_per_s: 2000 }
  - id: slow-prefill
    based_on: small-fast-8b
    capacity: { prefill_tokens_per_s: 2000, ttft_floor_ms: 5, jitter: 0, cache_speedup: 0.8 }
  - id: timed
    based_on: small-fast-8b
    capacity: { decode_tokens_per_s: 200, ttft_floor_ms: 50, jitter: 0, slots: 8 }
endpoints:
  - endpoint_id: ep-one-slot
    model_arch_id: small-fast-8b
    org_name: local
    capacity: { slots: 1, decode_tokens_per_s: 100, ttft_floor_ms: 10, jitter: 0 }
`;

let emulator: Emulator;
const controllers: AbortController[] = [];

beforeAll(async () => {
  emulator = await createEmulator({ catalog: parseCatalogConfig(CONFIG, 'test-config.yaml', 'local') });
});

afterAll(async () => {
  for (const c of controllers) c.abort();
  await emulator.close();
});

interface Sent {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed body (null when empty): read it through completionBody / errorBody. */
  readonly json: unknown;
  readonly headersMs: number;
}

function post(
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${emulator.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer load-test-key', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
}

async function send(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Sent> {
  const started = performance.now();
  const res = await post(body, headers);
  const headersMs = performance.now() - started;
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text.length > 0 ? JSON.parse(text) : null, headersMs };
}

interface Streamed {
  readonly status: number;
  readonly headersMs: number;
  /** Parsed `data:` payloads with the client time (ms since send) of the read that delivered them. */
  readonly events: { readonly atMs: number; readonly data: unknown }[];
  readonly endMs: number;
  readonly error: unknown;
}

/** Streams a request, recording when each SSE event arrived (a framing-agnostic, minimal parser). */
async function stream(
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
  onHeaders?: () => void,
): Promise<Streamed> {
  const started = performance.now();
  const res = await post({ ...body, stream: true }, headers, signal);
  const headersMs = performance.now() - started;
  onHeaders?.();
  const events: { atMs: number; data: unknown }[] = [];
  let buffer = '';
  let error: unknown = null;
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const atMs = performance.now() - started;
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (event.startsWith('data: ') && event !== 'data: [DONE]')
          events.push({ atMs, data: JSON.parse(event.slice(6)) });
      }
    }
  } catch (e) {
    error = e;
  }
  return { status: res.status, headersMs, events, endMs: performance.now() - started, error };
}

/** The content a stream event carries: '' for a chunk without content and for anything but a chunk. */
function deltaContent(data: unknown): string {
  return isChunk(data) ? (data.choices[0]?.delta.content ?? '') : '';
}

function contentOf(events: Streamed['events']): string {
  return events.map((e) => deltaContent(e.data)).join('');
}

const USER = [{ role: 'user', content: 'Tell me something.' }];

describe('tiers under contention', () => {
  it('serves queued requests priority first, then default, then flex; auto runs as priority on an endpoint', async () => {
    const busy = new AbortController();
    controllers.push(busy);
    // Take the endpoint's only slot for ~0.8 s; its headers mean the job is in the engine.
    // Wait for them (not a fixed time): a loaded machine may read and plan it later than the others.
    let inEngine = (): void => {};
    const headersSeen = new Promise<void>((resolve) => {
      inEngine = resolve;
    });
    const holding = stream(
      { model: 'ep-one-slot', messages: USER, max_completion_tokens: 80 },
      {},
      busy.signal,
      inEngine,
    );
    await headersSeen;
    const tiers = ['flex', 'default', 'priority', 'auto'] as const;
    const results = await Promise.all(
      tiers.map((tier) => send({ model: 'ep-one-slot', messages: USER, max_completion_tokens: 3, service_tier: tier })),
    );
    await holding;
    for (const tier of tiers) expect(results[tiers.indexOf(tier)]!.status).toBe(200);
    const byTier = Object.fromEntries(tiers.map((tier, i) => [tier, completionBody(results[i]!)]));
    expect(byTier.auto?.service_tier_used).toBe('priority');
    // Only auto reports the tier it ran in: the others were asked by name.
    expect(byTier.flex?.service_tier_used).toBeUndefined();
    expect(byTier.priority?.service_tier_used).toBeUndefined();
    const queue = (tier: string) => byTier[tier]!.time_info.queue_time;
    // All four waited for the busy stream (~0.75 s left when they arrived).
    expect(queue('priority')).toBeGreaterThan(0.3);
    expect(queue('priority')).toBeLessThan(queue('default'));
    expect(queue('auto')).toBeLessThan(queue('default'));
    expect(queue('default')).toBeLessThan(queue('flex'));
  });

  it('reports auto as default on a shared model (priority exists on dedicated endpoints only)', async () => {
    const res = await send({ model: 'small-fast-8b', messages: USER, max_completion_tokens: 2, service_tier: 'auto' });
    expect(res.status).toBe(200);
    expect(completionBody(res).service_tier_used).toBe('default');
  });
});

describe('rate limits', () => {
  it('counts the headers down, answers 429 at the limit, and lets the request through after retry-after', async () => {
    // 6000 tokens a minute; each request reserves its prompt + 2000.
    const body = { model: 'tiny-limits', messages: USER, max_completion_tokens: 2000 };
    const first = await send(body);
    const second = await send(body);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests-minute')).toBe('60');
    expect(first.headers.get('x-ratelimit-remaining-requests-minute')).toBe('59');
    expect(second.headers.get('x-ratelimit-remaining-requests-minute')).toBe('58');
    expect(first.headers.get('x-ratelimit-limit-tokens-day')).toBe(String(6000 * 1440));
    const firstTokens = Number(first.headers.get('x-ratelimit-remaining-tokens-minute'));
    const secondTokens = Number(second.headers.get('x-ratelimit-remaining-tokens-minute'));
    expect(firstTokens).toBeLessThanOrEqual(4000);
    expect(firstTokens - secondTokens).toBeGreaterThan(1900);
    expect(Number(second.headers.get('x-ratelimit-reset-tokens-minute'))).toBeGreaterThan(30);

    const third = await send(body);
    expect(third.status).toBe(429);
    expect(third.json).toMatchObject({ type: 'too_many_tokens_error', code: 'token_quota_exceeded' });
    expect(errorBody(third).message).not.toContain('load-test-key');
    expect(third.headers.get('x-ratelimit-remaining-tokens-minute')).not.toBeNull();
    const retryAfterS = Number(third.headers.get('retry-after'));
    expect(retryAfterS).toBeGreaterThanOrEqual(1);
    expect(retryAfterS).toBeLessThanOrEqual(3);

    await new Promise((r) => setTimeout(r, retryAfterS * 1000 + 50));
    const retried = await send(body);
    expect(retried.status).toBe(200);
  });

  it('puts the headers on streamed responses too, and keeps flex apart', async () => {
    const flex = await stream({ model: 'tiny-limits', messages: USER, max_completion_tokens: 5, service_tier: 'flex' });
    expect(flex.status).toBe(200);
    const res = await post({
      model: 'tiny-limits',
      messages: USER,
      max_completion_tokens: 5,
      stream: true,
      service_tier: 'flex',
    });
    await res.text();
    // The flex budget is its own: 2 requests so far, whatever default traffic did before.
    expect(res.headers.get('x-ratelimit-remaining-requests-minute')).toBe('58');
  });
});

describe('queue_threshold', () => {
  it('turns flex away up front with queue_exceeded while the endpoint is backed up, and admits it above the average', async () => {
    const busy = new AbortController();
    const waiting = new AbortController();
    controllers.push(busy, waiting);
    const holding = stream({ model: 'ep-one-slot', messages: USER, max_completion_tokens: 300 }, {}, busy.signal).catch(
      () => null,
    );
    await new Promise((r) => setTimeout(r, 30));
    const queued = stream({ model: 'ep-one-slot', messages: USER, max_completion_tokens: 3 }, {}, waiting.signal).catch(
      () => null,
    );
    // Let the queue age: the rolling average follows the waiting request's age.
    await new Promise((r) => setTimeout(r, 1500));
    const rejected = await send(
      { model: 'ep-one-slot', messages: USER, max_completion_tokens: 3, service_tier: 'flex' },
      { queue_threshold: '50' },
    );
    expect(rejected.status).toBe(429);
    expect(rejected.json).toMatchObject({ type: 'too_many_requests_error', code: 'queue_exceeded' });
    expect(rejected.headersMs).toBeLessThan(1000);
    // The same request under a threshold above the average is admitted (it then queues; abort it).
    const admittedAbort = new AbortController();
    controllers.push(admittedAbort);
    const admitted = await post(
      { model: 'ep-one-slot', messages: USER, max_completion_tokens: 3, service_tier: 'flex', stream: true },
      { queue_threshold: '20000' },
      admittedAbort.signal,
    );
    expect(admitted.status).toBe(200);
    admittedAbort.abort();
    busy.abort();
    waiting.abort();
    await Promise.all([holding, queued]);
  });
});

describe('prompt cache', () => {
  it('reports cached_tokens in whole blocks on a repeated prefix and spends less prompt time', async () => {
    const system = { role: 'system', content: 'The quick brown fox jumps over the lazy dog. '.repeat(150) };
    const body = {
      model: 'slow-prefill',
      messages: [system, ...USER],
      max_completion_tokens: 2,
      prompt_cache_key: 'conversation-1',
    };
    const first = await send(body);
    const second = await send(body);
    expect(first.status).toBe(200);
    const firstBody = completionBody(first);
    const secondBody = completionBody(second);
    expect(firstBody.usage.prompt_tokens).toBeGreaterThan(1000);
    expect(firstBody.usage.prompt_tokens_details?.cached_tokens ?? 0).toBe(0);
    const cached = secondBody.usage.prompt_tokens_details?.cached_tokens ?? 0;
    expect(cached).toBeGreaterThan(0);
    expect(cached % 128).toBe(0);
    expect(cached).toBeLessThanOrEqual(secondBody.usage.prompt_tokens);
    expect(secondBody.time_info.prompt_time).toBeLessThan(firstBody.time_info.prompt_time * 0.6);
    // Another key shares nothing.
    const other = await send({ ...body, prompt_cache_key: 'conversation-2' });
    expect(completionBody(other).usage.prompt_tokens_details?.cached_tokens ?? 0).toBe(0);
  });
});

describe('faults (x-emulator-fault)', () => {
  const body = { model: 'small-fast-8b', messages: USER, max_completion_tokens: 20 };

  it('http_500 and http_503 answer with the error body', async () => {
    const a = await send(body, { 'x-emulator-fault': 'http_500' });
    const b = await send(body, { 'x-emulator-fault': 'http_503' });
    expect(a.status).toBe(500);
    expect(errorBody(a).type).toBe('internal_server_error');
    expect(b.status).toBe(503);
    expect(errorBody(b).type).toBe('service_unavailable_error');
  });

  it('stream_error sends an error event after the given tokens', async () => {
    const res = await stream(body, { 'x-emulator-fault': 'stream_error;after=2' });
    expect(res.status).toBe(200);
    const last = asStreamError(res.events.at(-1)!.data);
    expect(last.error.type).toBe('internal_server_error');
    expect(last.status_code).toBe(500);
    const tokens = res.events.filter((e) => deltaContent(e.data) !== '').length;
    expect(tokens).toBeLessThanOrEqual(2);
    expect(contentOf(res.events).length).toBeGreaterThan(0);
  });

  it('reset cuts the connection mid-stream', { timeout: 15_000 }, async () => {
    const res = await stream(body, { 'x-emulator-fault': 'reset;after=2' });
    expect(res.status).toBe(200);
    expect(res.error).not.toBeNull();
    expect(res.events.some((e) => isChunk(e.data) && Boolean(e.data.choices[0]?.finish_reason))).toBe(false);
  });

  it('stall_before_headers and slow_headers delay the headers, then the stream completes', async () => {
    for (const kind of ['stall_before_headers', 'slow_headers']) {
      const res = await stream(body, { 'x-emulator-fault': `${kind};ms=300` });
      expect(res.status).toBe(200);
      expect(res.headersMs).toBeGreaterThanOrEqual(280);
      expect(asChunk(res.events.at(-1)!.data).choices[0]!.finish_reason).not.toBeNull();
    }
  });

  it('stall_between_tokens leaves a gap in the middle of the stream', async () => {
    const res = await stream(body, { 'x-emulator-fault': 'stall_between_tokens;after=3;ms=400' });
    const times = res.events.map((e) => e.atMs);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(380);
    expect(asChunk(res.events.at(-1)!.data).choices[0]!.finish_reason).not.toBeNull();
  });

  it('rejects an unknown fault with a 400 naming the header', async () => {
    const res = await send(body, { 'x-emulator-fault': 'meltdown' });
    expect(res.status).toBe(400);
    expect(errorBody(res).param).toBe('x-emulator-fault');
  });
});

describe('time_info against the client', () => {
  it('agrees with the TTFT and end-to-end time the client measures', async () => {
    const res = await stream({ model: 'timed', messages: USER, max_completion_tokens: 40 });
    const final = asChunk(res.events.at(-1)!.data);
    const info = final.time_info!;
    const firstToken = res.events.find((e) => deltaContent(e.data) !== '')!;
    const serverTtftMs = (info.queue_time + info.prompt_time) * 1000;
    // The client started earlier and reads later than the server measures: never much less, a little more.
    expect(firstToken.atMs).toBeGreaterThanOrEqual(serverTtftMs - 2);
    expect(firstToken.atMs - serverTtftMs).toBeLessThan(250);
    expect(res.endMs).toBeGreaterThanOrEqual(info.total_time * 1000 - 2);
    expect(res.endMs - info.total_time * 1000).toBeLessThan(250);
    // 40 tokens at 200/s: 39 intervals of 5 ms after the first. Token i is due at the first token's planned
    // time + i x 5 ms: a first token written late (a busy event loop) moves that lateness from completion to
    // prompt time, never removes it, so the two together hold the whole schedule.
    expect(info.prompt_time + info.completion_time).toBeGreaterThan(0.049 + 0.18);
    expect(info.completion_time).toBeLessThan(0.6);
    expect(info.prompt_time).toBeGreaterThanOrEqual(0.049);
    expect(final.usage?.completion_tokens).toBe(40);
  });
});
