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
      // Seconds 2 and 3 had 4 and 2: numpy's p99 of the two.
      p99: 3.98,
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

  it("p99 of a gauge and max/p99 of a counter's rate: from timeseries.csv's seconds in the window", () => {
    // A scrape 10 µs into each of seconds 1..11: waiting 1..11 (second k: k), prompt tokens growing by
    // 100 x k in second k (a rate of 100 x k tokens/s: its seconds are 1 s apart).
    let tokens = 0;
    const rising = log(
      'http://vllm:8000/metrics',
      'vllm',
      Array.from({ length: 11 }, (_, i) => {
        tokens += 100 * (i + 1);
        return {
          atUs: (i + 1) * S + 10,
          samples: { 'vllm:num_requests_waiting': i + 1, 'vllm:prompt_tokens_total': tokens },
        };
      }),
    );
    // The phase: seconds 2..11 of the run (the scrapes at 2..11 s inside it; the one at 1 s its baseline).
    const phase = serverPhase([rising], { fromUs: 2 * S, toUs: 11 * S + 500_000, outputTokens: 0 }, 0);
    const rows = serverSeconds([rising], 0, 12);
    const inPhase = (column: string) => rows.slice(2, 12).map((row) => row[column] as number);
    expect(inPhase('server_waiting')).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(inPhase('server_prompt_tokens_per_s')).toEqual([200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100]);
    // numpy's linear p99 of 10 samples: rank 0.99 x 9 = 8.91, between the 9th and the 10th.
    expect(phase.concepts['waiting']).toMatchObject({ kind: 'gauge', last: 11, min: 2, max: 11, mean: 6.5 });
    expect(phase.concepts['waiting']).toHaveProperty('p99');
    const waiting = phase.concepts['waiting'] as { p99: number };
    expect(waiting.p99).toBeCloseTo(10.91, 9);
    const prompt = phase.concepts['prompt_tokens_per_s'] as {
      delta: number;
      per_s: number;
      max_per_s: number;
      p99_per_s: number;
    };
    expect(prompt.delta).toBe(6500);
    expect(prompt.per_s).toBe(650);
    expect(prompt.max_per_s).toBe(1100);
    expect(prompt.p99_per_s).toBeCloseTo(1091, 6);
  });

  it('a second cut by the window: only its scrapes inside the window count (p99 never above max)', () => {
    // Waiting 50 at 1.9 s (before the phase), 5 at 2.1 s, 7 at 2.6 s, 3 at 3.2 s; the phase (2 s, 3.5 s].
    const cut = log('http://vllm:8000/metrics', 'vllm', [
      { atUs: 1_900_000, samples: { 'vllm:num_requests_waiting': 50, 'vllm:prompt_tokens_total': 0 } },
      { atUs: 2_100_000, samples: { 'vllm:num_requests_waiting': 5, 'vllm:prompt_tokens_total': 100 } },
      { atUs: 2_600_000, samples: { 'vllm:num_requests_waiting': 7, 'vllm:prompt_tokens_total': 600 } },
      { atUs: 3_200_000, samples: { 'vllm:num_requests_waiting': 3, 'vllm:prompt_tokens_total': 1200 } },
    ]);
    const phase = serverPhase([cut], { fromUs: 2 * S, toUs: 3_500_000, outputTokens: 0 }, 0);
    // Second 2: (2, 3] last 7; second 3 cut to (3, 3.5]: 3. p99 of [7, 3] by numpy: 3 + 4 x 0.99.
    expect((phase.concepts['waiting'] as { p99: number }).p99).toBeCloseTo(6.96, 9);
    expect(phase.concepts['waiting']).toMatchObject({ max: 7 });
    // Rates: second 2 from 1.9 s (0) to 2.6 s (600): 600 / 0.7 s; second 3 from 2.6 s to 3.2 s: 600 / 0.6 s.
    const prompt = phase.concepts['prompt_tokens_per_s'] as { max_per_s: number };
    expect(prompt.max_per_s).toBeCloseTo(1000, 6);
  });

  it("one scrape in the phase: a gauge's p99 is its value; a counter, without two scrapes, is absent", () => {
    const one = log('http://vllm:8000/metrics', 'vllm', [
      { atUs: 2_500_000, samples: { 'vllm:num_requests_waiting': 4, 'vllm:prompt_tokens_total': 10 } },
    ]);
    const phase = serverPhase([one], { fromUs: 2 * S, toUs: 3 * S, outputTokens: 0 }, 0);
    expect(phase.concepts['waiting']).toMatchObject({ p99: 4 });
    expect(phase.concepts['prompt_tokens_per_s']).toBeUndefined();
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
        slowest_ms: null,
      },
    ]);
    expect(serverWarnings([failing])).toEqual([
      "server metrics http://user:***@vllm:8000/metrics: 3 of 3 scrapes failed (2 timeout, 1 connect); last: connect: ECONNREFUSED; the client's numbers are unaffected",
    ]);
  });

  it('ticks skipped (a scrape still under way at the next): a warning with the count, the interval and the slowest answer', () => {
    // Scrapes that took 1.3 s and 2.45 s at an interval of 1 s: 3 ticks found one still going.
    const slow = log('http://vllm:8000/metrics', 'vllm', [
      { atUs: S, samples: { 'vllm:num_requests_waiting': 1 } },
      { atUs: 3 * S, samples: { 'vllm:num_requests_waiting': 1 } },
    ]);
    const scrapes = slow.scrapes as { startUs: number; endUs: number }[];
    (scrapes[0] as { endUs: number }).endUs = S + 1_300_000;
    (scrapes[1] as { endUs: number }).endUs = 3 * S + 2_450_000;
    slow.skipped = 3;
    expect(serverWarnings([slow])).toEqual([
      'server metrics http://vllm:8000/metrics: 3 scrape ticks skipped (2 scrapes made): the scrape before was still under way (interval 1000 ms; answers took up to 2450 ms); set a longer interval',
    ]);
    expect(serverEndpoints([slow], 0)[0]).toMatchObject({ skipped: 3, attempts: 2, slowest_ms: 2450 });
  });

  it('auto that recognised nothing is a warning; a healthy endpoint is none', () => {
    const unknown = log('http://node:9100/metrics', null, [{ atUs: 10, samples: { node_load1: 1 } }]);
    expect(serverWarnings([unknown])[0]).toMatch(
      /^server metrics http:\/\/node:9100\/metrics: preset auto recognised no engine/,
    );
    expect(serverWarnings([vllm])).toEqual([]);
  });
});
