/**
 * The server as the live views show it (aggregate/server-metrics/server-latest.ts), from logs with known
 * scrapes: a gauge is its latest scrape's value, a counter's rate and a hit ratio are over the interval
 * from the scrape before, the first scrape has gauges only, and a scrape older than three intervals (an
 * endpoint that stopped answering) shows nothing rather than old values as if current.
 */
import { describe, expect, it } from 'vitest';
import { serverLatest } from '../../../src/aggregate/server-metrics/server-latest.js';
import type { Sample } from '../../../src/client/server-metrics/exposition.js';
import type { EndpointLog } from '../../../src/client/server-metrics/scraper.js';
import { endpointSpec } from '../../helpers/engine-metrics-server.js';

const S = 1_000_000;

function vllmLog(scrapes: readonly Record<string, number>[], failures = 0): EndpointLog {
  const url = 'http://user:***@vllm:8000/metrics';
  return {
    url,
    spec: endpointSpec(url, { intervalMs: 1000, timeoutMs: 800, metrics: [] }),
    engine: 'vllm',
    // Scrape k starts 10 µs into second k + 1 of a run that started at 0.
    scrapes: scrapes.map((samples, k) => ({
      startUs: (k + 1) * S + 10,
      endUs: (k + 1) * S + 2000,
      bytes: 100,
      samples: Object.entries(samples).map(([name, value]): Sample => ({ name, labels: {}, value })),
    })),
    attempts: scrapes.length + failures,
    skipped: 0,
    failures: {
      count: failures,
      byKind: { timeout: failures, connect: 0, http_status: 0, too_large: 0, parse: 0, not_prometheus: 0 },
      last: null,
      at: [],
    },
  };
}

const SCRAPES = [
  {
    'vllm:num_requests_running': 2,
    'vllm:num_requests_waiting': 1,
    'vllm:kv_cache_usage_perc': 0.5,
    'vllm:prompt_tokens_total': 100,
    'vllm:prefix_cache_hits_total': 10,
    'vllm:prefix_cache_queries_total': 40,
  },
  {
    'vllm:num_requests_running': 4,
    'vllm:num_requests_waiting': 6,
    'vllm:kv_cache_usage_perc': 0.9,
    'vllm:prompt_tokens_total': 400,
    'vllm:prefix_cache_hits_total': 40,
    'vllm:prefix_cache_queries_total': 80,
  },
  {
    'vllm:num_requests_running': 3,
    'vllm:num_requests_waiting': 2,
    'vllm:kv_cache_usage_perc': 0.7,
    'vllm:prompt_tokens_total': 600,
    'vllm:prefix_cache_hits_total': 40,
    'vllm:prefix_cache_queries_total': 80,
  },
];

describe('serverLatest', () => {
  it('gives each gauge as the latest scrape said it, rates and ratios over the interval before it', () => {
    const [endpoint] = serverLatest([vllmLog(SCRAPES.slice(0, 2), 1)], 0, 2 * S + 600_000);
    expect(endpoint).toMatchObject({ url: 'http://user:***@vllm:8000/metrics', atS: 2, scrapesOk: 2, failures: 1 });
    const c = endpoint?.concepts ?? {};
    expect(c.running).toMatchObject({ kind: 'gauge', last: 4, max: 4 });
    expect(c.waiting).toMatchObject({ kind: 'gauge', last: 6 });
    expect(c.kv_cache_usage).toMatchObject({ kind: 'gauge', last: 0.9 });
    // 300 tokens over the 1 s between the two scrapes; 30 hits of 40 queries.
    expect(c.prompt_tokens_per_s).toMatchObject({ kind: 'counter', delta: 300, perS: 300 });
    expect(c.prefix_cache_hit_ratio).toMatchObject({ kind: 'ratio', value: 0.75 });
    // A second later the third scrape is the latest: its own interval only (nothing queried: no ratio value).
    const [next] = serverLatest([vllmLog(SCRAPES)], 0, 3 * S + 20);
    expect(next?.atS).toBe(3);
    expect(next?.concepts.waiting).toMatchObject({ last: 2 });
    expect(next?.concepts.prompt_tokens_per_s).toMatchObject({ perS: 200 });
    expect(next?.concepts.prefix_cache_hit_ratio).toMatchObject({ value: null, queries: 0 });
  });

  it('has gauges only after the first scrape, and nothing before it', () => {
    expect(serverLatest([vllmLog([])], 0, S)).toEqual([
      { url: 'http://user:***@vllm:8000/metrics', atS: null, concepts: {}, scrapesOk: 0, failures: 0 },
    ]);
    const [first] = serverLatest([vllmLog(SCRAPES.slice(0, 1))], 0, S + 500_000);
    expect(first?.concepts.waiting).toMatchObject({ last: 1 });
    expect(first?.concepts.prompt_tokens_per_s).toBeUndefined();
  });

  it('shows nothing once the latest scrape is more than three intervals old', () => {
    const log = vllmLog(SCRAPES);
    expect(serverLatest([log], 0, 3 * S + 10 + 3 * S)[0]?.concepts.waiting).toMatchObject({ last: 2 });
    const [stale] = serverLatest([log], 0, 3 * S + 10 + 3 * S + 1);
    expect(stale).toMatchObject({ atS: null, concepts: {}, scrapesOk: 3 });
  });
});
