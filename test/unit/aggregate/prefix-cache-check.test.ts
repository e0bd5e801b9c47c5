/**
 * Prefix caching confirmed (aggregate/server-metrics/prefix-cache-check.ts): which groups aim at the prompt
 * cache, the client's tally of usage cached_tokens (estimated counts and answers without the field left
 * out) per phase and per slot of time, exact client, server and intended ratios, the client's requests
 * counted between the same two scrapes as the server's counters, the tolerance's edges, fields absent when
 * not computable (never 0), SGLang's hit-rate gauge, and the warning's text.
 */
import { describe, expect, it } from 'vitest';
import {
  cacheSlotUs,
  type CachedRequest,
  type CacheTally,
  type CheckedPhase,
  cacheAimOf,
  createCacheTally,
  PREFIX_CACHE_TOLERANCE,
  prefixCacheCheck,
  prefixCacheWarning,
  SlotSums,
  tallyCachedTokens,
} from '../../../src/aggregate/server-metrics/prefix-cache-check.js';
import { serverPhase } from '../../../src/aggregate/server-metrics/server-summary.js';
import type { EndpointLog } from '../../../src/client/server-metrics/scraper.js';
import type { ServerConceptSummary } from '../../../src/metrics/server-summary.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import type { ResolvedProfile } from '../../../src/profile/resolved-profile.js';
import { endpointSpec } from '../../helpers/engine-metrics-server.js';

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

const S = 1_000_000;
/** 10 ms slots (the slot of a 200 ms scrape interval). */
const SLOT_US = 10_000;
const URL = 'http://vllm:8000/metrics';

/** One request, measured unless said, its prompt processed at `atUs` (1.5 s: inside the phase below). */
function request(
  input: number,
  cached: number,
  label: string | undefined,
  options: { atUs?: number; phase?: 'warmup' | 'measured'; prefixTokens?: number | null } = {},
): CachedRequest {
  return {
    phase: options.phase ?? 'measured',
    prefilledUs: options.atUs ?? 1.5 * S,
    aim: { prefixTokens: options.prefixTokens === undefined ? 768 : options.prefixTokens },
    values: usage(input, cached),
    prefixLabel: label,
  };
}

function tally(requests: readonly CachedRequest[]): CacheTally {
  const t = createCacheTally(SLOT_US);
  for (const r of requests) tallyCachedTokens(t, r);
  return t;
}

const FOUR = [request(1024, 768, 'p0'), request(1024, 0, 'p1'), request(1024, 768, 'p0'), request(512, 0, 'none')];

function ratioConcept(hits: number, queries: number): ServerConceptSummary {
  return {
    kind: 'ratio',
    value: queries > 0 ? hits / queries : null,
    hits,
    queries,
    sources: ['vllm:prefix_cache_hits_total', 'vllm:prefix_cache_queries_total'],
    endpoint: URL,
  };
}

/** The measured phase (1 s, 11 s] with the server's `concept`. */
function phase(concept?: ServerConceptSummary, name: 'warmup' | 'measured' = 'measured'): CheckedPhase {
  return {
    name,
    fromUs: 1 * S,
    toUs: 11 * S,
    server: {
      from_s: 1,
      to_s: 11,
      scrapes: 10,
      failures: 0,
      output_tokens: 100,
      concepts: concept === undefined ? {} : { prefix_cache_hit_ratio: concept },
      energy_per_output_token_j: null,
    },
  };
}

/** The check with no scrapes to place the counters (the client's side is then the phase's requests). */
const check = (t: CacheTally, p: CheckedPhase) => prefixCacheCheck(t, [], p, 0);

const sums = (requests: number, promptTokens: number, cachedTokens: number, intendedTokens: number) => ({
  requests,
  promptTokens,
  cachedTokens,
  intendedTokens,
});

describe('tallyCachedTokens', () => {
  it('sums usage cached_tokens per phase and per slot of when the prompt was processed; intended prefix tokens of those with a prefix', () => {
    const t = tally([...FOUR, request(1000, 500, 'p0', { phase: 'warmup', atUs: 0.5 * S })]);
    expect(t.aimed).toBe(true);
    expect(t.phases).toEqual({ measured: sums(4, 3584, 1536, 2304), warmup: sums(1, 1000, 500, 768) });
    expect(t.slots.between(1.49 * S, 1.5 * S)).toEqual(sums(0, 0, 0, 0));
    expect(t.slots.between(1.5 * S, 1.51 * S)).toEqual(sums(4, 3584, 1536, 2304));
    expect(t.slots.between(0.5 * S, 0.51 * S)).toEqual(sums(1, 1000, 500, 768));
    expect(t.slots.between(0, 2 * S)).toEqual(sums(5, 4584, 2036, 3072));
  });

  it('leaves out estimated counts, answers without cached_tokens and without prompt tokens', () => {
    const t = createCacheTally(SLOT_US);
    tallyCachedTokens(t, { ...request(1024, 768, 'p0'), values: usage(1024, 768, true) });
    tallyCachedTokens(t, request(1024, Number.NaN, 'p0'));
    tallyCachedTokens(t, request(Number.NaN, Number.NaN, 'p0'));
    tallyCachedTokens(t, request(0, 0, 'p0'));
    expect(t.aimed).toBe(true);
    expect(t.phases.measured).toEqual(sums(0, 0, 0, 0));
    expect(t.slots.between(0, 10 * S)).toEqual(sums(0, 0, 0, 0));
  });

  it('a group that aims at nothing counts its tokens and intends none; one whose share is unknown makes it unknown', () => {
    const t = createCacheTally(SLOT_US);
    tallyCachedTokens(t, { ...request(1000, 0, undefined), aim: null });
    expect(t.aimed).toBe(false);
    tallyCachedTokens(t, request(1000, 500, 'p0', { prefixTokens: 500 }));
    expect(t.aimed).toBe(true);
    expect(t.phases.measured).toEqual(sums(2, 2000, 500, 500));
    tallyCachedTokens(t, request(1000, 500, undefined, { prefixTokens: null }));
    expect(t.phases.measured.intendedTokens).toBeNaN();
  });
});

describe('SlotSums', () => {
  it('grows either way, keeps sums per slot and an unknown intended share unknown', () => {
    const slots = new SlotSums(SLOT_US);
    const one = (promptTokens: number, intendedTokens = 0) => ({
      requests: 1,
      promptTokens,
      cachedTokens: promptTokens / 2,
      intendedTokens,
    });
    slots.add(5 * S, one(100));
    // 1,000 slots later, then 400 slots earlier than the first: the array grows at both ends.
    slots.add(15 * S + 1, one(200));
    slots.add(1 * S, one(400, Number.NaN));
    slots.add(5 * S + 9_999, one(800));
    expect(slots.between(4.99 * S, 5.01 * S)).toEqual(sums(2, 900, 450, 0));
    expect(slots.between(15 * S, 15.01 * S)).toEqual(sums(1, 200, 100, 0));
    expect(slots.between(2 * S, 20 * S)).toEqual(sums(3, 1100, 550, 0));
    const all = slots.between(0, 20 * S);
    expect(all).toMatchObject({ requests: 4, promptTokens: 1500, cachedTokens: 750 });
    expect(all.intendedTokens).toBeNaN();
  });

  it('a slot is a twentieth of the shortest scrape interval, 5 ms at the finest, 50 ms at most', () => {
    expect(cacheSlotUs([1000])).toBe(50_000);
    expect(cacheSlotUs([2000, 200])).toBe(10_000);
    expect(cacheSlotUs([100])).toBe(5_000);
    expect(cacheSlotUs([5000])).toBe(50_000);
    expect(cacheSlotUs([])).toBe(50_000);
  });
});

describe('prefixCacheCheck', () => {
  it('exact ratios: client 1536 / 3584, server 15360 / 20480, intended 2304 / 3584; 0.32 apart, they disagree', () => {
    expect(check(tally(FOUR), phase(ratioConcept(15360, 20480)))).toEqual({
      from_s: 1,
      to_s: 11,
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
    const half = tally([request(1000, 500, 'p0')]);
    // 0.6 - 0.5 and 0.4 - 0.5 are 0.1 up to a rounding: on the edge.
    expect(check(half, phase(ratioConcept(600, 1000)))?.agree).toBe(true);
    expect(check(half, phase(ratioConcept(400, 1000)))?.agree).toBe(true);
    expect(check(half, phase(ratioConcept(6001, 10000)))?.agree).toBe(false);
    expect(check(half, phase(ratioConcept(3999, 10000)))?.agree).toBe(false);
    expect(check(half, phase(ratioConcept(500, 1000)))).toMatchObject({ difference: 0, agree: true });
  });

  it('absent, never 0: no server concept, a server with no query, no client usage, an unknown intended share', () => {
    const t = tally([request(1000, 500, 'p0')]);
    expect(check(t, phase())).toEqual({
      from_s: 1,
      to_s: 11,
      client_requests: 1,
      client_prompt_tokens: 1000,
      client_cached_tokens: 500,
      client_cached_ratio: 0.5,
      intended_ratio: 0.768,
      tolerance: 0.1,
    });
    const idle = check(t, phase(ratioConcept(0, 0)));
    expect(idle).not.toHaveProperty('server_hit_ratio');
    expect(idle).not.toHaveProperty('agree');

    const silent = tally([request(1000, Number.NaN, 'p0')]);
    expect(check(silent, phase(ratioConcept(750, 1000)))).toEqual({
      from_s: 1,
      to_s: 11,
      client_requests: 0,
      client_prompt_tokens: 0,
      client_cached_tokens: 0,
      server_hit_ratio: 0.75,
      tolerance: 0.1,
    });

    const session = tally([request(1000, 500, undefined, { prefixTokens: null })]);
    expect(check(session, phase(ratioConcept(500, 1000)))).not.toHaveProperty('intended_ratio');
  });

  it('null for a scenario no request of which aimed at the cache', () => {
    const t = createCacheTally(SLOT_US);
    tallyCachedTokens(t, { ...request(1000, 100, undefined), aim: null });
    expect(check(t, phase(ratioConcept(100, 1000)))).toBeNull();
  });

  it("SGLang's hit-rate gauge: its mean over the window, beside the phase's requests", () => {
    const gauge: ServerConceptSummary = {
      kind: 'gauge',
      last: 0.5,
      min: 0.2,
      max: 0.6,
      mean: 0.45,
      sources: ['sglang:cache_hit_rate'],
      endpoint: 'http://sglang:30000/metrics',
    };
    expect(check(tally([request(1000, 500, 'p0')]), phase(gauge))).toMatchObject({
      server_hit_ratio: 0.45,
      difference: 0.45 - 0.5,
      agree: true,
    });
  });
});

/** An endpoint log of vLLM scrapes at `atUs` with the prefix-cache counters then. */
function vllmLog(scrapes: readonly { atUs: number; hits: number; queries: number }[]): EndpointLog {
  return {
    url: URL,
    spec: endpointSpec(URL, { intervalMs: 1000, timeoutMs: 800, metrics: [] }),
    engine: 'vllm',
    scrapes: scrapes.map(({ atUs, hits, queries }) => ({
      startUs: atUs,
      endUs: atUs + 1000,
      bytes: 100,
      samples: [
        { name: 'vllm:prefix_cache_hits_total', labels: {}, value: hits },
        { name: 'vllm:prefix_cache_queries_total', labels: {}, value: queries },
      ],
    })),
    attempts: scrapes.length,
    skipped: 0,
    failures: {
      count: 0,
      byKind: { timeout: 0, connect: 0, http_status: 0, too_large: 0, parse: 0, not_prometheus: 0 },
      last: null,
      at: [],
    },
  };
}

describe('prefixCacheCheck over the scrapes the counters were read between', () => {
  it("counts the client's requests the server processed between the same two scrapes, a warmup one included", () => {
    // Scrapes at 0.9 s (the baseline, before the measured phase from 1 s), 2 s and 3 s; the phase ends at 3.4 s.
    const logs = [
      vllmLog([
        { atUs: 0.9 * S, hits: 100, queries: 1000 },
        { atUs: 2 * S, hits: 1300, queries: 3000 },
        { atUs: 3 * S, hits: 1800, queries: 4000 },
      ]),
    ];
    const t = tally([
      // Before the baseline: not in the counters' increase.
      request(1000, 100, 'p0', { phase: 'warmup', atUs: 0.5 * S }),
      // A warmup request processed after the baseline scrape: the counters have it.
      request(1000, 200, 'p0', { phase: 'warmup', atUs: 0.95 * S }),
      request(1000, 1000, 'p0', { atUs: 1.5 * S }),
      request(1000, 500, 'p1', { atUs: 2.5 * S }),
      // After the last scrape inside the phase: the counters do not have it yet.
      request(1000, 0, 'p1', { atUs: 3.2 * S }),
    ]);
    const span = { name: 'measured' as const, fromUs: 1 * S, toUs: 3.4 * S, outputTokens: 0 };
    const server = serverPhase(logs, span, 0);
    expect(server.concepts.prefix_cache_hit_ratio).toMatchObject({ kind: 'ratio', hits: 1700, queries: 3000 });
    expect(prefixCacheCheck(t, logs, { ...span, server }, 0)).toEqual({
      from_s: 0.9,
      to_s: 3,
      client_requests: 3,
      client_prompt_tokens: 3000,
      client_cached_tokens: 1700,
      client_cached_ratio: 1700 / 3000,
      server_hit_ratio: 1700 / 3000,
      intended_ratio: (3 * 768) / 3000,
      tolerance: 0.1,
      difference: 0,
      agree: true,
    });
    // The phase's own requests are others (1.5, 2.5 and 3.2 s): 1500 of 3000.
    expect(t.phases.measured).toEqual(sums(3, 3000, 1500, 3 * 768));
  });

  it("a request is placed by the middle of its 10 ms slot: one a few ms from a scrape may land on the scrape's other side", () => {
    const logs = [
      vllmLog([
        { atUs: 1 * S, hits: 0, queries: 0 },
        { atUs: 2 * S + 4000, hits: 500, queries: 1000 },
      ]),
    ];
    // 2.002 s: before the scrape at 2.004 s, in the slot [2.000, 2.010) whose middle, 2.005 s, is after it.
    const t = tally([request(1000, 500, 'p0', { atUs: 1.5 * S }), request(1000, 1000, 'p0', { atUs: 2 * S + 2000 })]);
    const span = { name: 'measured' as const, fromUs: 1.2 * S, toUs: 2.5 * S, outputTokens: 0 };
    const result = prefixCacheCheck(t, logs, { ...span, server: serverPhase(logs, span, 0) }, 0);
    expect(result).toMatchObject({ client_requests: 1, client_cached_ratio: 0.5, server_hit_ratio: 0.5, agree: true });
  });
});

describe('prefixCacheWarning', () => {
  it('names the scenario, the phase, both ratios with their sources, the difference and the tolerance', () => {
    const t = tally([request(1000, 600, 'p0'), request(1000, 600, 'p1')]);
    const p = phase(ratioConcept(300, 2000));
    const withCheck = { ...p.server, prefix_cache: check(t, p)! };
    expect(prefixCacheWarning('chat', 'measured', withCheck)).toBe(
      'prefix cache, scenario chat (measured): the client saw 0.600 of its prompt tokens cached (usage cached_tokens: ' +
        '1200 of 2000, 2 requests), the server 0.150 (vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total); ' +
        "they differ by 0.450, more than the tolerance of 0.10: the server's counters may count other clients or " +
        'replicas (labels:), or the usage does not come from the engine scraped',
    );
  });

  it('none when they agree, when one side is missing, or without a check', () => {
    const t = tally([request(1000, 600, 'p0')]);
    const agreeing = phase(ratioConcept(650, 1000));
    expect(
      prefixCacheWarning('chat', 'measured', { ...agreeing.server, prefix_cache: check(t, agreeing)! }),
    ).toBeNull();
    const serverless = phase();
    expect(
      prefixCacheWarning('chat', 'measured', { ...serverless.server, prefix_cache: check(t, serverless)! }),
    ).toBeNull();
    expect(prefixCacheWarning('chat', 'measured', phase(ratioConcept(0, 1000)).server)).toBeNull();
  });
});
