/**
 * `metrics:` extras (series no preset reads) in the outputs, against a purpose-built vLLM endpoint with
 * known values per step (test/helpers/engine-metrics-server.ts), over real sockets: each kept name is
 * reduced as its family's TYPE says (a gauge's last/min/max/mean, a counter's increase and rate, a
 * histogram named by its family from its buckets' increases, in the series' own unit), written in
 * summary.json's phase as `extras` keyed by the raw name and in timeseries.csv as `server_extra_*` columns;
 * the preset's own names stay concepts, never extras.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { serverPhase, serverSeconds } from '../../../src/aggregate/server-metrics/server-summary.js';
import { serverWindow } from '../../../src/aggregate/server-metrics/server-window.js';
import { startServerMetrics, type EndpointLog, type ServerScrape } from '../../../src/client/server-metrics/scraper.js';
import { serverPhaseSchema } from '../../../src/metrics/server-summary.js';
import { systemClock } from '../../../src/util/clock.js';
import {
  type EngineMetricsServer,
  endpointSpec,
  stepOf,
  startEngineMetricsServer,
} from '../../helpers/engine-metrics-server.js';
import { until } from '../../helpers/until.js';

const servers: EngineMetricsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const METRICS = [
  'test_step',
  'vllm:num_requests_swapped',
  'vllm:request_success_total',
  // A histogram named by its family: its _bucket, _sum and _count are kept.
  'vllm:e2e_request_latency_seconds',
  '/^vllm:cache_config/',
  // A preset's own name: a concept, not an extra.
  'vllm:num_requests_running',
];

/** Scrapes vLLM at step 1, then at step 4: the log, the last step-1 scrape and the first step-4 one. */
async function scrapeSteps(): Promise<{ log: EndpointLog; base: ServerScrape; end: ServerScrape }> {
  const server = await startEngineMetricsServer('vllm');
  servers.push(server);
  server.step = 1;
  const session = startServerMetrics([endpointSpec(server.url, { metrics: METRICS })], {
    clock: systemClock,
    env: {},
  });
  const log = session.logs[0] as EndpointLog;
  await until(() => log.scrapes.some((s) => stepOf(s) === 1), 'a scrape of step 1');
  server.step = 4;
  await until(() => log.scrapes.some((s) => stepOf(s) === 4), 'a scrape of step 4');
  await session.stop();
  const base = log.scrapes.filter((s) => stepOf(s) === 1).at(-1) as ServerScrape;
  const end = log.scrapes.find((s) => stepOf(s) === 4) as ServerScrape;
  return { log, base, end };
}

const gauge = (value: number, source: string) => ({
  kind: 'gauge',
  last: value,
  min: value,
  max: value,
  mean: value,
  sources: [source],
});

describe('metrics: extras', () => {
  it('each reduced as its TYPE says, in summary.json (extras, by raw name) and timeseries.csv (server_extra_*)', async () => {
    const { log, base, end } = await scrapeSteps();
    const seconds = (end.startUs - base.startUs) / 1e6;
    // Label sets summed (b is twice a): 3 x step; a counter's increase over steps 1 -> 4: 3 x 21.
    const window = serverWindow(log, base.startUs, end.startUs);
    expect(window.extras).toEqual({
      test_step: gauge(4, 'test_step'),
      'vllm:num_requests_swapped': gauge(12, 'vllm:num_requests_swapped'),
      'vllm:cache_config_info': gauge(1, 'vllm:cache_config_info'),
      'vllm:request_success_total': {
        kind: 'counter',
        delta: 63,
        perS: 63 / seconds,
        sources: ['vllm:request_success_total'],
      },
      'vllm:e2e_request_latency_seconds': expect.objectContaining({
        kind: 'histogram',
        sources: [
          'vllm:e2e_request_latency_seconds_bucket',
          'vllm:e2e_request_latency_seconds_sum',
          'vllm:e2e_request_latency_seconds_count',
        ],
      }),
    });
    // 10 observations per step and factor (a 1, b 2), 3 steps: 90; in seconds, as exposed (never scaled).
    const e2e = window.extras['vllm:e2e_request_latency_seconds'];
    if (e2e?.kind !== 'histogram') throw new Error(JSON.stringify(e2e));
    expect(e2e.count).toBe(90);
    expect(e2e.mean).toBeCloseTo(0.24, 9);
    expect(e2e.p50).toBeCloseTo(0.2, 9);
    expect(e2e.p90).toBeCloseTo(0.75, 9);
    expect(window.concepts.running?.kind).toBe('gauge');

    // summary.json: the phase's extras beside its concepts, with the endpoint, and the spread over seconds.
    const runStartUs = base.startUs - 300_000;
    const phase = serverPhaseSchema.parse(
      serverPhase([log], { fromUs: base.startUs, toUs: end.startUs, outputTokens: 0 }, runStartUs),
    );
    expect(Object.keys(phase.extras ?? {}).sort()).toEqual([
      'test_step',
      'vllm:cache_config_info',
      'vllm:e2e_request_latency_seconds',
      'vllm:num_requests_swapped',
      'vllm:request_success_total',
    ]);
    expect(phase.extras?.['vllm:num_requests_swapped']).toEqual({
      ...gauge(12, 'vllm:num_requests_swapped'),
      p99: 12,
      endpoint: log.url,
    });
    // Every second of the phase that has a rate reads it from base to end: 63 over their seconds.
    expect(phase.extras?.['vllm:request_success_total']).toEqual({
      kind: 'counter',
      delta: 63,
      per_s: 63 / seconds,
      max_per_s: 63 / seconds,
      p99_per_s: 63 / seconds,
      sources: ['vllm:request_success_total'],
      endpoint: log.url,
    });
    expect(phase.extras?.['vllm:e2e_request_latency_seconds']).toMatchObject({ kind: 'histogram', count: 90 });
    expect(phase.concepts['vllm:num_requests_swapped']).toBeUndefined();

    // timeseries.csv: the second of the step-4 scrape has the extras' columns.
    const second = Math.floor((end.startUs - runStartUs - 1) / 1e6);
    const rows = serverSeconds([log], runStartUs, second + 1);
    const row = rows[second] ?? {};
    expect(row['server_extra_vllm:num_requests_swapped']).toBe(12);
    expect(row['server_extra_vllm:num_requests_swapped_max']).toBe(12);
    expect(row['server_extra_vllm:request_success_total_per_s']).toBeGreaterThan(0);
    expect(row['server_extra_vllm:e2e_request_latency_seconds_p50']).toBeCloseTo(0.2, 9);
    expect(row['server_extra_vllm:e2e_request_latency_seconds_p99']).toBeCloseTo(0.5 + (0.5 * (9.9 - 8)) / 2, 9);
    // The same columns on every row (a second without a value: null).
    for (const r of rows) expect(Object.keys(r)).toEqual(Object.keys(row));
  });

  it('none kept: no extras in the phase', async () => {
    const server = await startEngineMetricsServer('vllm');
    servers.push(server);
    const session = startServerMetrics([endpointSpec(server.url, { metrics: [] })], { clock: systemClock, env: {} });
    const log = session.logs[0] as EndpointLog;
    await until(() => log.scrapes.length >= 2, 'two scrapes');
    await session.stop();
    const phase = serverPhase([log], { fromUs: 0, toUs: log.scrapes.at(-1)!.startUs, outputTokens: 0 }, 0);
    expect(phase.extras).toBeUndefined();
    expect(phase.concepts.waiting?.kind).toBe('gauge');
  });
});
