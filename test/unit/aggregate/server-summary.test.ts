/**
 * The scrapes of a run as its outputs read them (aggregate/server-metrics/server-summary.ts), from logs
 * with known scrapes: timeseries.csv's server columns per second (named per concept, a gauge's last and
 * max, a counter's rate, a second without a scrape empty), a phase's concepts with their raw names, energy
 * per output token from DCGM's energy counter or else from power, each endpoint's record, and the warnings.
 */
import { describe, expect, it } from 'vitest';
import {
  serverEndpoints,
  serverPhase,
  serverSeconds,
  serverWarnings,
} from '../../../src/aggregate/server-metrics/server-summary.js';
import type { EngineName } from '../../../src/client/server-metrics/engine-presets.js';
import type { Sample } from '../../../src/client/server-metrics/exposition.js';
import type { EndpointLog } from '../../../src/client/server-metrics/scraper.js';
import { endpointSpec } from '../../helpers/engine-metrics-server.js';

const S = 1_000_000;

function log(
  url: string,
  engine: EngineName | null,
  scrapes: readonly { atUs: number; samples: Record<string, number> }[],
): EndpointLog {
  return {
    url,
    spec: endpointSpec(url, { intervalMs: 1000, timeoutMs: 800, metrics: [] }),
    engine,
    scrapes: scrapes.map(({ atUs, samples }) => ({
      startUs: atUs,
      endUs: atUs + 1000,
      bytes: 100,
      samples: Object.entries(samples).map(([name, value]): Sample => ({ name, labels: {}, value })),
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

// Scrapes 10 µs into seconds 1, 2 and 3 of a run that started at 0.
const vllm = log('http://vllm:8000/metrics', 'vllm', [
  {
    atUs: S + 10,
    samples: { 'vllm:num_requests_waiting': 1, 'vllm:kv_cache_usage_perc': 0.5, 'vllm:prompt_tokens_total': 100 },
  },
  {
    atUs: 2 * S + 10,
    samples: { 'vllm:num_requests_waiting': 4, 'vllm:kv_cache_usage_perc': 0.9, 'vllm:prompt_tokens_total': 400 },
  },
  {
    atUs: 3 * S + 10,
    samples: { 'vllm:num_requests_waiting': 2, 'vllm:kv_cache_usage_perc': 0.7, 'vllm:prompt_tokens_total': 600 },
  },
]);
// DCGM: 2 GPUs' power summed, energy in mJ.
const dcgm = (energy: boolean) =>
  log(
    'http://dcgm:9400/metrics',
    'dcgm',
    [1, 2, 3].map((k) => ({
      atUs: k * S + 10,
      samples: {
        DCGM_FI_DEV_POWER_USAGE: 100 * k,
        ...(energy ? { DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION: 1_000_000 * k } : {}),
      },
    })),
  );

describe('server columns of timeseries.csv', () => {
  it('one row per second, the columns of the concepts seen, empty where a second had no scrape', () => {
    const rows = serverSeconds([vllm], 0, 4);
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'server_waiting',
      'server_waiting_max',
      'server_kv_cache_usage',
      'server_kv_cache_usage_max',
      'server_prompt_tokens_per_s',
    ]);
    expect(rows[0]).toEqual({
      server_waiting: null,
      server_waiting_max: null,
      server_kv_cache_usage: null,
      server_kv_cache_usage_max: null,
      server_prompt_tokens_per_s: null,
    });
    expect(rows.map((row) => row['server_waiting'])).toEqual([null, 1, 4, 2]);
    expect(rows.map((row) => row['server_kv_cache_usage'])).toEqual([null, 0.5, 0.9, 0.7]);
    // A counter's rate needs a scrape before the second: 300 tokens over the 1 s between the scrapes.
    expect(rows.map((row) => row['server_prompt_tokens_per_s'])).toEqual([null, null, 300, 200]);
  });

  it('nothing scraped: no columns', () => {
    expect(serverSeconds([log('http://x/metrics', null, [])], 0, 3)).toEqual([]);
  });
});

describe('a phase of summary.json', () => {
  it('concepts with their raw names; energy per output token from the energy counter', () => {
    const phase = serverPhase([vllm, dcgm(true)], { fromUs: S + 10, toUs: 3 * S + 10, outputTokens: 500 }, 0);
    expect(phase).toMatchObject({ from_s: 1, to_s: 3, scrapes: 4, failures: 0, output_tokens: 500 });
    expect(phase.concepts['waiting']).toEqual({
      kind: 'gauge',
      last: 2,
      min: 2,
      max: 4,
      mean: 3,
      sources: ['vllm:num_requests_waiting'],
      endpoint: 'http://vllm:8000/metrics',
    });
    expect(phase.concepts['prompt_tokens_per_s']).toMatchObject({ kind: 'counter', delta: 500, per_s: 250 });
    expect(phase.concepts['energy_j']).toMatchObject({
      kind: 'counter',
      delta: 2000,
      endpoint: 'http://dcgm:9400/metrics',
    });
    // 2000 J (the counter's increase, mJ / 1000) over 500 output tokens.
    expect(phase.energy_j).toBe(2000);
    expect(phase.energy_per_output_token_j).toBe(4);
  });

  it("a shard of several: the deployment's joules, no energy per token (its tokens are a share)", () => {
    const phase = serverPhase([vllm, dcgm(true)], { fromUs: S + 10, toUs: 3 * S + 10, outputTokens: 500 }, 0, true);
    expect(phase.energy_j).toBe(2000);
    expect(phase.energy_per_output_token_j).toBeNull();
    expect(phase.output_tokens).toBe(500);
  });

  it('without an energy counter: power mean x the window', () => {
    const phase = serverPhase([dcgm(false)], { fromUs: S + 10, toUs: 3 * S + 10, outputTokens: 100 }, 0);
    // Power 200 W and 300 W in the window: a mean of 250 W over 2 s = 500 J, over 100 tokens.
    expect(phase.energy_j).toBe(500);
    expect(phase.energy_per_output_token_j).toBe(5);
    expect(
      serverPhase([vllm], { fromUs: S + 10, toUs: 3 * S + 10, outputTokens: 100 }, 0).energy_per_output_token_j,
    ).toBeNull();
    expect(
      serverPhase([dcgm(true)], { fromUs: S + 10, toUs: 3 * S + 10, outputTokens: 0 }, 0).energy_per_output_token_j,
    ).toBeNull();
  });
});

describe('endpoints and warnings', () => {
  it('a failing endpoint: its counts, kinds and last error, and a warning that says them', () => {
    const failing = log('http://user:***@vllm:8000/metrics', 'vllm', []);
    failing.attempts = 3;
    failing.failures.count = 3;
    failing.failures.byKind.timeout = 2;
    failing.failures.byKind.connect = 1;
    failing.failures.last = { startUs: 2_500_000, endUs: 2_600_000, kind: 'connect', message: 'ECONNREFUSED' };
    expect(serverEndpoints([failing], 500_000)).toEqual([
      {
        url: 'http://user:***@vllm:8000/metrics',
        preset: 'auto',
        engine: 'vllm',
        interval_ms: 1000,
        attempts: 3,
        scrapes_ok: 0,
        skipped: 0,
        failures: 3,
        failures_by_kind: { timeout: 2, connect: 1 },
        last_error: { kind: 'connect', message: 'ECONNREFUSED', at_s: 2 },
      },
    ]);
    expect(serverWarnings([failing])).toEqual([
      "server metrics http://user:***@vllm:8000/metrics: 3 of 3 scrapes failed (2 timeout, 1 connect); last: connect: ECONNREFUSED; the client's numbers are unaffected",
    ]);
  });

  it('auto that recognised nothing is a warning; a healthy endpoint is none', () => {
    const unknown = log('http://node:9100/metrics', null, [{ atUs: 10, samples: { node_load1: 1 } }]);
    expect(serverWarnings([unknown])[0]).toMatch(
      /^server metrics http:\/\/node:9100\/metrics: preset auto recognised no engine/,
    );
    expect(serverWarnings([vllm])).toEqual([]);
  });
});
