/**
 * Prefix caching confirmed (aggregate/server-metrics/prefix-cache-check.ts): which groups aim at the prompt
 * cache, the client's tally of usage cached_tokens (estimated counts and answers without the field left
 * out), exact client, server and intended ratios, the tolerance's edges, fields absent when not computable
 * (never 0), SGLang's hit-rate gauge, and the warning's text.
 */
import { describe, expect, it } from 'vitest';
import {
  cacheAimOf,
  createCacheTally,
  PREFIX_CACHE_TOLERANCE,
  prefixCacheCheck,
  prefixCacheWarning,
  tallyCachedTokens,
  type CacheTally,
} from '../../../src/aggregate/server-metrics/prefix-cache-check.js';
import type { ServerConceptSummary, ServerPhaseSummary } from '../../../src/metrics/server-summary.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import type { ResolvedProfile } from '../../../src/profile/resolved-profile.js';

function profile(scenarios: string): ResolvedProfile {
  return resolveProfileText(`name: p\ntarget: { base_url: "http://127.0.0.1:1" }\nscenarios:\n${scenarios}`, 'p.yaml');
}

function aims(resolved: ResolvedProfile) {
  return resolved.groups.map((group) => {
    const scenario = resolved.scenarios.find((s) => s.name === group.scenario)!;
    return [group.key, cacheAimOf(scenario, group)];
  });
}

const LOAD = 'load: { mode: concurrency, concurrency: 1 }\n    requests: 4\n    models: [m]';

describe('cacheAimOf', () => {
  it('prefixes give their tokens; shared prefixes, sessions and tool loops aim with no known share; a plain prompt aims at nothing', () => {
    const resolved = profile(`  - name: prefixed
    ${LOAD}
    prompt: { input_tokens: 256, prefixes: { groups: 4, tokens: 768, share: 0.9 } }
  - name: shared
    ${LOAD}
    prompt: { input_tokens: 256, shared_prefix_tokens: 512 }
  - name: chat
    ${LOAD}
    prompt: { input_tokens: 64 }
    session: { turns: 3 }
  - name: chat-prefixed
    ${LOAD}
    prompt: { input_tokens: 64, prefixes: { groups: 2, tokens: 128 } }
    session: { turns: 3 }
  - name: plain
    ${LOAD}
    prompt: { input_tokens: 64 }
  - name: mixed
    ${LOAD}
    mix:
      - { name: cached, weight: 1, prompt: { input_tokens: 64, prefixes: { groups: 2, tokens: 256 } } }
      - { name: fresh, weight: 1, prompt: { input_tokens: 64 } }
`);
    expect(aims(resolved)).toEqual([
      ['prefixed/m/-', { prefixTokens: 768 }],
      ['shared/m/-', { prefixTokens: null }],
      ['chat/m/-', { prefixTokens: null }],
      ['chat-prefixed/m/-', { prefixTokens: null }],
      ['plain/m/-', null],
      ['mixed.cached/m/-', { prefixTokens: 256 }],
      ['mixed.fresh/m/-', null],
    ]);
  });
});

const usage = (input: number, cached: number, estimated = false) => ({
  input_tokens: input,
  cached_tokens: cached,
  tokensEstimated: estimated,
});

function tally(
  entries: readonly [number, number, string | undefined][],
  prefixTokens: number | null = 768,
): CacheTally {
  const t = createCacheTally();
  for (const [input, cached, label] of entries) tallyCachedTokens(t, { prefixTokens }, usage(input, cached), label);
  return t;
}

function ratioConcept(hits: number, queries: number): ServerConceptSummary {
  return {
    kind: 'ratio',
    value: queries > 0 ? hits / queries : null,
    hits,
    queries,
    sources: ['vllm:prefix_cache_hits_total', 'vllm:prefix_cache_queries_total'],
    endpoint: 'http://vllm:8000/metrics',
  };
}

function phase(concept?: ServerConceptSummary): ServerPhaseSummary {
  return {
    from_s: 1,
    to_s: 11,
    scrapes: 10,
    failures: 0,
    output_tokens: 100,
    concepts: concept === undefined ? {} : { prefix_cache_hit_ratio: concept },
    energy_per_output_token_j: null,
  };
}

describe('tallyCachedTokens', () => {
  it('sums usage cached_tokens over the requests that reported it; intended prefix tokens of those with a prefix', () => {
    const t = tally([
      [1024, 768, 'p0'],
      [1024, 0, 'p1'],
      [1024, 768, 'p0'],
      [512, 0, 'none'],
    ]);
    expect(t).toEqual({ requests: 4, promptTokens: 3584, cachedTokens: 1536, intendedTokens: 2304, aimed: true });
  });

  it('leaves out estimated counts, answers without cached_tokens and without prompt tokens', () => {
    const t = createCacheTally();
    const aim = { prefixTokens: 768 };
    tallyCachedTokens(t, aim, usage(1024, 768, true), 'p0');
    tallyCachedTokens(t, aim, usage(1024, Number.NaN), 'p0');
    tallyCachedTokens(t, aim, usage(Number.NaN, Number.NaN), 'p0');
    tallyCachedTokens(t, aim, usage(0, 0), 'p0');
    expect(t).toEqual({ requests: 0, promptTokens: 0, cachedTokens: 0, intendedTokens: 0, aimed: true });
  });

  it('a group that aims at nothing counts its tokens and intends none; one whose share is unknown makes it unknown', () => {
    const t = createCacheTally();
    tallyCachedTokens(t, null, usage(1000, 0), undefined);
    expect(t.aimed).toBe(false);
    tallyCachedTokens(t, { prefixTokens: 500 }, usage(1000, 500), 'p0');
    expect(t).toEqual({ requests: 2, promptTokens: 2000, cachedTokens: 500, intendedTokens: 500, aimed: true });
    tallyCachedTokens(t, { prefixTokens: null }, usage(1000, 500), undefined);
    expect(t.intendedTokens).toBeNaN();
  });
});

describe('prefixCacheCheck', () => {
  it('exact ratios: client 1536 / 3584, server 15360 / 20480, intended 2304 / 3584; they agree', () => {
    const t = tally([
      [1024, 768, 'p0'],
      [1024, 0, 'p1'],
      [1024, 768, 'p0'],
      [512, 0, 'none'],
    ]);
    const check = prefixCacheCheck(t, phase(ratioConcept(15360, 20480)));
    expect(check).toEqual({
      client_requests: 4,
      client_prompt_tokens: 3584,
      client_cached_tokens: 1536,
      client_cached_ratio: 1536 / 3584,
      server_hit_ratio: 0.75,
      intended_ratio: 2304 / 3584,
      tolerance: 0.1,
      difference: 0.75 - 1536 / 3584,
      agree: false,
    });
  });

  it('the tolerance is 0.10 absolute, its edge agreeing on either side', () => {
    expect(PREFIX_CACHE_TOLERANCE).toBe(0.1);
    const half = tally([[1000, 500, 'p0']]);
    // 0.6 - 0.5 and 0.4 - 0.5 are 0.1 up to a rounding: on the edge.
    expect(prefixCacheCheck(half, phase(ratioConcept(600, 1000)))?.agree).toBe(true);
    expect(prefixCacheCheck(half, phase(ratioConcept(400, 1000)))?.agree).toBe(true);
    expect(prefixCacheCheck(half, phase(ratioConcept(6001, 10000)))?.agree).toBe(false);
    expect(prefixCacheCheck(half, phase(ratioConcept(3999, 10000)))?.agree).toBe(false);
    expect(prefixCacheCheck(half, phase(ratioConcept(500, 1000)))).toMatchObject({ difference: 0, agree: true });
  });

  it('absent, never 0: no server concept, a server with no query, no client usage, an unknown intended share', () => {
    const t = tally([[1000, 500, 'p0']]);
    const noServer = prefixCacheCheck(t, phase());
    expect(noServer).toEqual({
      client_requests: 1,
      client_prompt_tokens: 1000,
      client_cached_tokens: 500,
      client_cached_ratio: 0.5,
      intended_ratio: 0.768,
      tolerance: 0.1,
    });
    const idle = prefixCacheCheck(t, phase(ratioConcept(0, 0)));
    expect(idle).not.toHaveProperty('server_hit_ratio');
    expect(idle).not.toHaveProperty('agree');

    const silent = createCacheTally();
    tallyCachedTokens(silent, { prefixTokens: 768 }, usage(1000, Number.NaN), 'p0');
    const noClient = prefixCacheCheck(silent, phase(ratioConcept(750, 1000)));
    expect(noClient).toEqual({
      client_requests: 0,
      client_prompt_tokens: 0,
      client_cached_tokens: 0,
      server_hit_ratio: 0.75,
      tolerance: 0.1,
    });

    const session = tally([[1000, 500, undefined]], null);
    expect(prefixCacheCheck(session, phase(ratioConcept(500, 1000)))).not.toHaveProperty('intended_ratio');
  });

  it('null for a phase no request of which aimed at the cache', () => {
    const t = createCacheTally();
    tallyCachedTokens(t, null, usage(1000, 100), undefined);
    expect(prefixCacheCheck(t, phase(ratioConcept(100, 1000)))).toBeNull();
  });

  it("SGLang's hit-rate gauge: its mean over the window", () => {
    const gauge: ServerConceptSummary = {
      kind: 'gauge',
      last: 0.5,
      min: 0.2,
      max: 0.6,
      mean: 0.45,
      sources: ['sglang:cache_hit_rate'],
      endpoint: 'http://sglang:30000/metrics',
    };
    expect(prefixCacheCheck(tally([[1000, 500, 'p0']]), phase(gauge))).toMatchObject({
      server_hit_ratio: 0.45,
      difference: 0.45 - 0.5,
      agree: true,
    });
  });
});

describe('prefixCacheWarning', () => {
  it('names the scenario, the phase, both ratios with their sources, the difference and the tolerance', () => {
    const t = tally([
      [1000, 600, 'p0'],
      [1000, 600, 'p1'],
    ]);
    const server = phase(ratioConcept(300, 2000));
    const withCheck = { ...server, prefix_cache: prefixCacheCheck(t, server)! };
    expect(prefixCacheWarning('chat', 'measured', withCheck)).toBe(
      'prefix cache, scenario chat (measured): the client saw 0.600 of its prompt tokens cached (usage cached_tokens: ' +
        '1200 of 2000, 2 requests), the server 0.150 (vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total); ' +
        "they differ by 0.450, more than the tolerance of 0.10: the server's counters may count other clients or " +
        'replicas (labels:), or the usage does not come from the engine scraped',
    );
  });

  it('none when they agree, when one side is missing, or without a check', () => {
    const t = tally([[1000, 600, 'p0']]);
    const agreeing = phase(ratioConcept(650, 1000));
    expect(
      prefixCacheWarning('chat', 'measured', { ...agreeing, prefix_cache: prefixCacheCheck(t, agreeing)! }),
    ).toBeNull();
    const serverless = phase();
    expect(
      prefixCacheWarning('chat', 'measured', { ...serverless, prefix_cache: prefixCacheCheck(t, serverless)! }),
    ).toBeNull();
    expect(prefixCacheWarning('chat', 'measured', phase(ratioConcept(0, 1000)))).toBeNull();
  });
});
