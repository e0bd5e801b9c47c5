import { describe, expect, it } from 'vitest';
import { BucketRateLimiter, UNLIMITED_RATE_LIMIT } from '../../../../src/emulator/rate-limit/bucket-rate-limiter.js';
import { TokenBucket } from '../../../../src/emulator/rate-limit/token-bucket.js';
import { BUILTIN_MODELS } from '../../../../src/emulator/catalog/builtin-catalog.js';
import type { ModelSpec } from '../../../../src/emulator/model-spec.js';
import { ManualClock } from '../../../../src/util/clock.js';

function modelWith(requestsPerMinute: number | null, tokensPerMinute: number | null): ModelSpec {
  const base = BUILTIN_MODELS[0]!;
  return { ...base, id: 'limited', limits: { ...base.limits, requestsPerMinute, tokensPerMinute } };
}

describe('token bucket', () => {
  it('refills continuously up to its capacity', () => {
    const bucket = new TokenBucket(60, 60_000, 0);
    bucket.take(60, 0);
    expect(bucket.level(0)).toBe(0);
    expect(bucket.level(10_000)).toBeCloseTo(10, 6);
    expect(bucket.waitMs(15, 10_000)).toBeCloseTo(5000, 6);
    expect(bucket.level(120_000)).toBe(60);
    expect(bucket.msUntilFull(120_000)).toBe(0);
  });

  it('lets an oversized request through only when full, then runs into debt', () => {
    const bucket = new TokenBucket(100, 60_000, 0);
    expect(bucket.waitMs(500, 0)).toBe(0);
    bucket.take(500, 0);
    expect(bucket.level(0)).toBe(-400);
    expect(bucket.waitMs(500, 0)).toBeCloseTo(300_000, 6);
  });
});

describe('bucket rate limiter', () => {
  it('counts requests down in the headers and answers 429 at the limit with a retry-after that works', () => {
    const clock = new ManualClock();
    const limiter = new BucketRateLimiter({ clock });
    const model = modelWith(3, null);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const decision = limiter.admit('key-a', model, 'default', 100);
      expect(decision.rejection).toBeNull();
      remaining.push(decision.headers['x-ratelimit-remaining-requests-minute']!);
      expect(decision.headers['x-ratelimit-limit-requests-minute']).toBe('3');
      expect(decision.headers['x-ratelimit-limit-requests-hour']).toBe(String(3 * 60));
      expect(decision.headers['x-ratelimit-limit-requests-day']).toBe(String(3 * 1440));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const rejected = limiter.admit('key-a', model, 'default', 100);
    expect(rejected.rejection).not.toBeNull();
    const error = rejected.rejection!;
    expect(error.status).toBe(429);
    expect(error.type).toBe('too_many_requests_error');
    expect(error.code).toBe('request_quota_exceeded');
    expect(error.param).toBe('quota');
    expect(error.message).not.toContain('key-a');
    // One request comes back every 20 s.
    expect(error.headers['retry-after']).toBe('20');
    expect(Number(rejected.headers['x-ratelimit-reset-requests-minute'])).toBeCloseTo(60, 3);
    // Unlimited tokens: reported as the very large unlimited value, never counted down.
    expect(rejected.headers['x-ratelimit-limit-tokens-minute']).toBe(String(UNLIMITED_RATE_LIMIT));
    expect(rejected.headers['x-ratelimit-remaining-tokens-minute']).toBe(String(UNLIMITED_RATE_LIMIT));
    expect(rejected.headers['x-ratelimit-reset-tokens-minute']).toBe('0');

    clock.advance(19_000);
    expect(limiter.admit('key-a', model, 'default', 100).rejection?.headers['retry-after']).toBe('1');
    clock.advance(1000);
    const honoured = limiter.admit('key-a', model, 'default', 100);
    expect(honoured.rejection).toBeNull();
    expect(honoured.headers['x-ratelimit-remaining-requests-minute']).toBe('0');
  });

  it('reserves input + max_completion_tokens and rejects with token_quota_exceeded', () => {
    const clock = new ManualClock();
    const limiter = new BucketRateLimiter({ clock });
    const model = modelWith(null, 10_000);
    expect(limiter.admit('k', model, 'default', 6000).headers['x-ratelimit-remaining-tokens-minute']).toBe('4000');
    const rejected = limiter.admit('k', model, 'default', 6000);
    expect(rejected.rejection?.type).toBe('too_many_tokens_error');
    expect(rejected.rejection?.code).toBe('token_quota_exceeded');
    expect(rejected.rejection?.param).toBe('quota');
    // 2000 more tokens at 10000/min: 12 s.
    expect(rejected.rejection?.headers['retry-after']).toBe('12');
    expect(rejected.headers['x-ratelimit-remaining-tokens-minute']).toBe('4000');
    expect(Number(rejected.headers['x-ratelimit-reset-tokens-minute'])).toBeCloseTo(36, 3);
    clock.advance(12_000);
    expect(limiter.admit('k', model, 'default', 6000).rejection).toBeNull();
  });

  it('keeps keys, models and flex apart from default/priority', () => {
    const clock = new ManualClock();
    const limiter = new BucketRateLimiter({ clock });
    const model = modelWith(1, null);
    expect(limiter.admit('a', model, 'default', 1).rejection).toBeNull();
    expect(limiter.admit('a', model, 'priority', 1).rejection).not.toBeNull();
    expect(limiter.admit('a', model, 'flex', 1).rejection).toBeNull();
    expect(limiter.admit('a', model, 'flex', 1).rejection).not.toBeNull();
    expect(limiter.admit('b', model, 'default', 1).rejection).toBeNull();
    expect(limiter.admit('a', { ...model, id: 'other' }, 'default', 1).rejection).toBeNull();
  });

  it('reports the state without counting', () => {
    const clock = new ManualClock();
    const limiter = new BucketRateLimiter({ clock });
    const model = modelWith(10, 1000);
    limiter.admit('a', model, 'default', 400);
    clock.advance(3000);
    const headers = limiter.headers('a', model, 'default');
    // 3 s at 10 requests and 1000 tokens a minute: half a request and 50 tokens back.
    expect(headers['x-ratelimit-remaining-requests-minute']).toBe('9');
    expect(headers['x-ratelimit-remaining-tokens-minute']).toBe('650');
    expect(headers['x-ratelimit-reset-tokens-minute']).toBe('21');
    expect(headers['x-ratelimit-reset-requests-minute']).toBe('3');
    expect(limiter.headers('a', model, 'default')['x-ratelimit-remaining-requests-minute']).toBe('9');
    // limit, remaining and reset x requests and tokens x minute, hour and day.
    expect(Object.keys(headers).sort()).toHaveLength(18);
  });

  it('reports the hour window at 60 minutes of the minute limit, counted down and refilled like the others', () => {
    const clock = new ManualClock();
    const limiter = new BucketRateLimiter({ clock });
    const model = modelWith(10, 1000);
    limiter.admit('a', model, 'default', 400);
    clock.advance(3000);
    const headers = limiter.headers('a', model, 'default');
    expect(headers['x-ratelimit-limit-requests-hour']).toBe('600');
    expect(headers['x-ratelimit-limit-tokens-hour']).toBe('60000');
    // One request and 400 tokens taken; 3 s at 10 requests and 1000 tokens a minute gave half a request
    // and 50 tokens back (the same refill rate as the minute window).
    expect(headers['x-ratelimit-remaining-requests-hour']).toBe('599');
    expect(headers['x-ratelimit-remaining-tokens-hour']).toBe('59650');
    expect(headers['x-ratelimit-reset-tokens-hour']).toBe('21');
    expect(headers['x-ratelimit-reset-requests-hour']).toBe('3');
  });

  it('reports very large limits and never rejects when the model is unlimited', () => {
    const limiter = new BucketRateLimiter({ clock: new ManualClock() });
    const model = modelWith(null, null);
    for (let i = 0; i < 1000; i++) expect(limiter.admit('a', model, 'default', 1e6).rejection).toBeNull();
    expect(limiter.headers('a', model, 'default')).toEqual(unlimitedHeaders());
  });
});

/** What an unlimited model or endpoint reports: every family, limit = remaining = the unlimited value, reset 0. */
function unlimitedHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const resource of ['requests', 'tokens'])
    for (const window of ['minute', 'hour', 'day']) {
      headers[`x-ratelimit-limit-${resource}-${window}`] = String(UNLIMITED_RATE_LIMIT);
      headers[`x-ratelimit-remaining-${resource}-${window}`] = String(UNLIMITED_RATE_LIMIT);
      headers[`x-ratelimit-reset-${resource}-${window}`] = '0';
    }
  return headers;
}

describe('exempt models', () => {
  it('never limits a model listed as unlimited (a dedicated endpoint)', () => {
    const limiter = new BucketRateLimiter({ clock: new ManualClock(), unlimitedModelIds: ['ep-1'] });
    const endpoint = { ...modelWith(1, 1), id: 'ep-1' };
    for (let i = 0; i < 10; i++) {
      const decision = limiter.admit('a', endpoint, 'priority', 1000);
      expect(decision.rejection).toBeNull();
      // The service sends the headers on every response: an exempt endpoint reports itself unlimited.
      expect(decision.headers).toEqual(unlimitedHeaders());
    }
    expect(limiter.admit('a', modelWith(1, null), 'default', 1).rejection).toBeNull();
    expect(limiter.admit('a', modelWith(1, null), 'default', 1).rejection).not.toBeNull();
  });
});
