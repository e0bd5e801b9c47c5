/**
 * The live Prometheus exporter (aggregate/prometheus/): bucket boundaries (inclusive `le`, +Inf, NaN and
 * negatives), the labels of every series (shard included, "" for no tier), counters read from the run
 * collector it is attached to (warmup nowhere, 429 as throttled: the collector's counts, never its own),
 * histograms observed from finished records (every ITL gap), and the run-level gauges from ticks and the end.
 */
import { describe, expect, it } from 'vitest';
import { FixedBucketHistogram } from '../../../../src/aggregate/prometheus/fixed-bucket-histogram.js';
import { LATENCY_BUCKETS_S } from '../../../../src/aggregate/prometheus/live-buckets.js';
import { LIVE_SERIES_NAMES } from '../../../../src/aggregate/prometheus/live-metric-families.js';
import { LiveMetricsExporter } from '../../../../src/aggregate/prometheus/live-metrics-exporter.js';
import { createRunCollector } from '../../../../src/aggregate/run-collector.js';
import type { ProgressSnapshot } from '../../../../src/aggregate/types.js';
import type { RequestRecord } from '../../../../src/client/request-record.js';
import type { RecordedValues } from '../../../../src/metrics/request-values.js';
import { createRequestRecord, type ErrorClass } from '../../../../src/client/request-record.js';
import { createRecordedValues } from '../../../../src/metrics/request-values.js';
import type { ResolvedGroup } from '../../../../src/profile/resolved-profile.js';
import type { ServerLatest } from '../../../../src/aggregate/server-metrics/server-latest.js';
import { SERVER_FAMILIES } from '../../../../src/aggregate/prometheus/live-server-families.js';
import { parsePromText, promSamples, promSum } from '../../../helpers/prometheus-text.js';

const CHAT: ResolvedGroup = {
  index: 0,
  scenario: 'chat',
  model: 'small-fast-8b',
  tier: null,
  key: 'chat/small-fast-8b/-',
};
const FLEX: ResolvedGroup = {
  index: 1,
  scenario: 'chat',
  model: 'large-70b',
  tier: 'flex',
  key: 'chat/large-70b/flex',
};

/**
 * An exporter attached to a run collector of CHAT and FLEX; `end` hands a finished request to both as a run
 * does (the collector counts it, then the exporter observes it).
 */
function exporter(shard = '') {
  const live = new LiveMetricsExporter({ shard, profile: 'p', version: '9.9.9' });
  const collector = createRunCollector({ groups: [CHAT, FLEX], slo: {}, runStartUs: 0 });
  live.attach((index) => collector.live?.(index));
  const end = (group: ResolvedGroup, finished: { record: RequestRecord; values: RecordedValues }): void => {
    if (!finished.record.warmup) collector.completed(finished.record, finished.values);
    live.record(finished.record, group, finished.values);
  };
  return { live, collector, end };
}

/** An ok request: TTFT and E2E in µs, text chunks at these times (µs), tokens. */
function okRecord(group: ResolvedGroup, ttftUs: number, e2eUs: number, chunkTimesUs: number[], warmup = false) {
  const record = createRequestRecord(1, group.index, 0, warmup);
  record.tokenChunkTimesUs = chunkTimesUs;
  record.rateLimitRemainingRequests = 41;
  const values = createRecordedValues();
  values.ttft_us = ttftUs;
  values.e2e_us = e2eUs;
  values.schedule_lag_us = 300;
  values.input_tokens = 100;
  values.output_tokens = chunkTimesUs.length;
  return { record, values };
}

function failedRecord(group: ResolvedGroup, errorClass: ErrorClass) {
  const record = createRequestRecord(2, group.index, 0);
  record.errorClass = errorClass;
  const values = createRecordedValues();
  values.schedule_lag_us = 2_000;
  return { record, values };
}

const ENGINE = 'http://user:***@vllm:8000/metrics';
const GPUS = 'http://dcgm:9400/metrics';
const gauge = (last: number) => ({ kind: 'gauge', last, min: last, max: last, mean: last, sources: ['x'] }) as const;
const rate = (perS: number) => ({ kind: 'counter', delta: perS, perS, sources: ['x'] }) as const;
const quantilesMs = (p50: number, p90: number, p99: number) =>
  ({ kind: 'histogram', count: 10, mean: p50, p50, p90, p99, sources: ['x'] }) as const;

/** An engine with every engine concept, a DCGM exporter with the GPU ones, and an endpoint gone stale. */
const SERVER: ServerLatest = [
  {
    url: ENGINE,
    atS: 3,
    scrapesOk: 4,
    failures: 1,
    concepts: {
      running: gauge(4),
      waiting: gauge(37),
      kv_cache_usage: gauge(0.98),
      preemptions: rate(0.5),
      prefix_cache_hit_ratio: { kind: 'ratio', value: 0.25, hits: 1, queries: 4, sources: ['x'] },
      prompt_tokens_per_s: rate(1200),
      generation_tokens_per_s: rate(350),
      server_ttft: quantilesMs(120, 480, 900),
      server_queue_time: quantilesMs(50, 400, 800),
      server_itl: quantilesMs(20, 30, 45),
    },
  },
  {
    url: GPUS,
    atS: 3,
    scrapesOk: 4,
    failures: 0,
    concepts: {
      gpu_util: gauge(0.93),
      gpu_memory_used: gauge(70e9),
      power_w: gauge(650),
      energy_j: rate(640),
    },
  },
  { url: 'http://gone:9000/metrics', atS: null, scrapesOk: 2, failures: 5, concepts: {} },
];

function snapshot(inFlight: number, dropped: number): ProgressSnapshot {
  return {
    elapsedMs: 1000,
    started: 0,
    completed: 0,
    failed: 0,
    throttled: 0,
    dropped,
    inFlight,
    requestsPerS: 0,
    outputTokensPerS: 0,
    ttftP50Ms: null,
  };
}

describe('FixedBucketHistogram', () => {
  it('counts a value equal to a bound in that bound (le is inclusive), larger ones only in +Inf', () => {
    const histogram = new FixedBucketHistogram([0.005, 0.01, 0.025]);
    for (const us of [5_000, 5_001, 10_000, 25_000, 25_001, 90_000_000]) histogram.observeUs(us);
    expect(histogram.cumulativeCounts()).toEqual([1, 3, 4, 6]);
    expect(histogram.count).toBe(6);
    expect(histogram.sumSeconds).toBeCloseTo(0.005 + 0.005001 + 0.01 + 0.025 + 0.025001 + 90, 9);
  });

  it('skips NaN (not reached) and counts a negative value as 0', () => {
    const histogram = new FixedBucketHistogram([0.001]);
    histogram.observeUs(Number.NaN);
    histogram.observeUs(-50);
    expect(histogram.cumulativeCounts()).toEqual([1, 1]);
    expect(histogram.sumSeconds).toBe(0);
  });

  it('latency buckets run from 5 ms to 120 s, ascending', () => {
    expect(LATENCY_BUCKETS_S[0]).toBe(0.005);
    expect(LATENCY_BUCKETS_S.at(-1)).toBe(120);
    expect([...LATENCY_BUCKETS_S].sort((a, b) => a - b)).toEqual(LATENCY_BUCKETS_S);
  });
});

describe('LiveMetricsExporter', () => {
  it('labels every group series with its dimensions and the shard, the same names everywhere', async () => {
    const { live } = exporter('2/4');
    live.groupsStarting([CHAT, FLEX]);
    const samples = parsePromText(await live.metrics());
    const ok = promSamples(samples, 'inferbench_requests_total', { outcome: 'ok' });
    expect(ok.map((s) => s.labels)).toEqual([
      {
        scenario: 'chat',
        model: 'small-fast-8b',
        tier: '',
        group: 'chat/small-fast-8b/-',
        shard: '2/4',
        outcome: 'ok',
      },
      { scenario: 'chat', model: 'large-70b', tier: 'flex', group: 'chat/large-70b/flex', shard: '2/4', outcome: 'ok' },
    ]);
    // Zero from the start, so rate() and increase() see the first request.
    expect(ok.map((s) => s.value)).toEqual([0, 0]);
    expect(promSamples(samples, 'inferbench_run_info')[0]?.labels).toEqual({
      profile: 'p',
      version: '9.9.9',
      shard: '2/4',
    });
  });

  it("serves the collector's counts: warmup nowhere, 429 throttled, errors by class, tokens of ok requests", async () => {
    const { live, end } = exporter();
    const ok = okRecord(CHAT, 40_000, 500_000, [40_000, 50_000, 70_000, 120_000]);
    end(CHAT, ok);
    const warm = okRecord(CHAT, 40_000, 500_000, [40_000, 50_000], true);
    end(CHAT, warm);
    for (const errorClass of ['http_429', 'http_429', 'http_5xx', 'timeout'] as const) {
      const failed = failedRecord(FLEX, errorClass);
      end(FLEX, failed);
    }
    const samples = parsePromText(await live.metrics());
    const chat = { group: CHAT.key };
    const flex = { group: FLEX.key };
    expect(promSum(samples, 'inferbench_requests_total', { ...chat, outcome: 'ok' })).toBe(1);
    expect(promSum(samples, 'inferbench_requests_total', { ...flex, outcome: 'failed' })).toBe(2);
    expect(promSum(samples, 'inferbench_requests_total', { ...flex, outcome: 'throttled' })).toBe(2);
    expect(promSum(samples, 'inferbench_request_errors_total', { ...flex, class: 'http_429' })).toBe(2);
    expect(promSum(samples, 'inferbench_request_errors_total', { ...flex, class: 'http_5xx' })).toBe(1);
    expect(promSum(samples, 'inferbench_request_errors_total', { ...flex, class: 'timeout' })).toBe(1);
    expect(promSum(samples, 'inferbench_request_errors_total', { ...flex, class: 'reset' })).toBe(0);
    expect(promSum(samples, 'inferbench_input_tokens_total', chat)).toBe(100);
    expect(promSum(samples, 'inferbench_output_tokens_total', chat)).toBe(4);
    expect(promSum(samples, 'inferbench_output_tokens_total', flex)).toBe(0);
    // Schedule lag of every request sent (ok and failed), not of the warmup one.
    expect(promSum(samples, 'inferbench_schedule_lag_seconds_count')).toBe(5);
    expect(promSum(samples, 'inferbench_schedule_lag_seconds_sum', flex)).toBeCloseTo(0.008, 9);
    expect(promSum(samples, 'inferbench_ratelimit_remaining_requests', chat)).toBe(41);
    // Never reported: absent, not 0.
    expect(promSamples(samples, 'inferbench_ratelimit_remaining_requests', flex)).toEqual([]);
    expect(promSamples(samples, 'inferbench_ratelimit_remaining_tokens')).toEqual([]);
  });

  it('counts nothing itself: a record it observes but the collector never counted is in no counter', async () => {
    const { live, collector } = exporter();
    const ok = okRecord(CHAT, 40_000, 500_000, [40_000, 50_000]);
    live.record(ok.record, CHAT, ok.values);
    const failed = failedRecord(FLEX, 'http_429');
    live.record(failed.record, FLEX, failed.values);
    let samples = parsePromText(await live.metrics());
    expect(promSum(samples, 'inferbench_requests_total')).toBe(0);
    expect(promSum(samples, 'inferbench_request_errors_total')).toBe(0);
    expect(promSum(samples, 'inferbench_output_tokens_total')).toBe(0);
    // Its own histogram did observe it.
    expect(promSum(samples, 'inferbench_ttft_seconds_count')).toBe(1);
    collector.completed(failed.record, failed.values);
    samples = parsePromText(await live.metrics());
    expect(promSum(samples, 'inferbench_requests_total', { group: FLEX.key, outcome: 'throttled' })).toBe(1);
  });

  it('observes TTFT, E2E and every ITL gap of ok requests into cumulative buckets in seconds', async () => {
    const { live, end } = exporter();
    const ok = okRecord(CHAT, 40_000, 500_000, [40_000, 50_000, 70_000, 120_000]);
    end(CHAT, ok);
    const failed = failedRecord(CHAT, 'http_5xx');
    end(CHAT, failed);
    const samples = parsePromText(await live.metrics());
    const bucket = (name: string, le: string) => promSum(samples, `inferbench_${name}_bucket`, { le });
    expect(bucket('ttft_seconds', '0.025')).toBe(0);
    expect(bucket('ttft_seconds', '0.05')).toBe(1);
    expect(bucket('ttft_seconds', '+Inf')).toBe(1);
    expect(promSum(samples, 'inferbench_ttft_seconds_sum')).toBeCloseTo(0.04, 9);
    expect(bucket('e2e_seconds', '0.3')).toBe(0);
    expect(bucket('e2e_seconds', '0.5')).toBe(1);
    // Gaps 10, 20 and 50 ms: one per bucket at or above it.
    expect(bucket('itl_seconds', '0.0075')).toBe(0);
    expect(bucket('itl_seconds', '0.01')).toBe(1);
    expect(bucket('itl_seconds', '0.02')).toBe(2);
    expect(bucket('itl_seconds', '0.04')).toBe(2);
    expect(bucket('itl_seconds', '0.05')).toBe(3);
    expect(promSum(samples, 'inferbench_itl_seconds_count')).toBe(3);
    expect(promSum(samples, 'inferbench_itl_seconds_sum')).toBeCloseTo(0.08, 9);
    expect(promSamples(samples, 'inferbench_ttft_seconds_bucket')).toHaveLength(LATENCY_BUCKETS_S.length + 1);
  });

  it('reports in flight, dropped and event-loop delay from ticks, and the end', async () => {
    const { live } = exporter();
    let samples = parsePromText(await live.metrics());
    expect(promSamples(samples, 'inferbench_event_loop_delay_p99_seconds')).toEqual([]);
    expect(promSum(samples, 'inferbench_run_ended')).toBe(0);
    live.tick(snapshot(12, 3), { p99Ms: 4.5, maxMs: 21 });
    samples = parsePromText(await live.metrics());
    expect(promSum(samples, 'inferbench_in_flight_requests')).toBe(12);
    expect(promSum(samples, 'inferbench_dropped_requests_total')).toBe(3);
    expect(promSum(samples, 'inferbench_event_loop_delay_p99_seconds')).toBeCloseTo(0.0045, 9);
    expect(promSum(samples, 'inferbench_event_loop_delay_max_seconds')).toBeCloseTo(0.021, 9);
    live.end(5);
    samples = parsePromText(await live.metrics());
    expect(promSum(samples, 'inferbench_in_flight_requests')).toBe(0);
    expect(promSum(samples, 'inferbench_dropped_requests_total')).toBe(5);
    expect(promSum(samples, 'inferbench_run_ended')).toBe(1);
  });

  it("passes on the server's latest scrapes per endpoint: gauges, rates, quantiles in seconds, scrape counts", async () => {
    const { live } = exporter('2/3');
    live.tick(snapshot(1, 0), null);
    let samples = parsePromText(await live.metrics());
    expect(samples.filter((s) => s.name.startsWith('inferbench_server_'))).toEqual([]);
    live.tick(snapshot(1, 0), null, SERVER);
    samples = parsePromText(await live.metrics());
    const at = (name: string, endpoint: string, extra: Record<string, string> = {}) =>
      promSamples(samples, name, { endpoint, ...extra }).map((s) => s.value);
    expect(promSamples(samples, 'inferbench_server_waiting_requests')).toEqual([
      { name: 'inferbench_server_waiting_requests', labels: { endpoint: ENGINE, shard: '2/3' }, value: 37 },
    ]);
    expect(at('inferbench_server_running_requests', ENGINE)).toEqual([4]);
    expect(at('inferbench_server_kv_cache_usage_ratio', ENGINE)).toEqual([0.98]);
    expect(at('inferbench_server_preemptions_per_second', ENGINE)).toEqual([0.5]);
    expect(at('inferbench_server_prefix_cache_hit_ratio', ENGINE)).toEqual([0.25]);
    expect(at('inferbench_server_prompt_tokens_per_second', ENGINE)).toEqual([1200]);
    expect(at('inferbench_server_generation_tokens_per_second', ENGINE)).toEqual([350]);
    expect(at('inferbench_server_ttft_seconds', ENGINE, { quantile: '0.5' })).toEqual([0.12]);
    expect(at('inferbench_server_ttft_seconds', ENGINE, { quantile: '0.99' })).toEqual([0.9]);
    expect(at('inferbench_server_queue_time_seconds', ENGINE, { quantile: '0.9' })).toEqual([0.4]);
    expect(at('inferbench_server_itl_seconds', ENGINE, { quantile: '0.99' })).toEqual([0.045]);
    expect(at('inferbench_server_gpu_utilization_ratio', GPUS)).toEqual([0.93]);
    expect(at('inferbench_server_gpu_memory_used_bytes', GPUS)).toEqual([70e9]);
    expect(at('inferbench_server_power_watts', GPUS)).toEqual([650]);
    expect(at('inferbench_server_energy_joules_per_second', GPUS)).toEqual([640]);
    // A concept an endpoint does not have is absent for it; a stale endpoint has its scrape counts only.
    expect(at('inferbench_server_power_watts', ENGINE)).toEqual([]);
    const gone = samples.filter((s) => s.labels.endpoint === 'http://gone:9000/metrics');
    expect(gone.map((s) => [s.name, s.labels.outcome, s.value])).toEqual([
      ['inferbench_server_scrapes_total', 'ok', 2],
      ['inferbench_server_scrapes_total', 'failed', 5],
    ]);
    expect(at('inferbench_server_scrapes_total', ENGINE, { outcome: 'failed' })).toEqual([1]);
    // A tick of a run that does not scrape (or a worker's) keeps the last values; the end keeps them too.
    live.tick(snapshot(1, 0), null, null);
    live.end(0);
    samples = parsePromText(await live.metrics());
    expect(promSum(samples, 'inferbench_server_waiting_requests')).toBe(37);
    // Every concept has its family.
    expect(Object.keys(SERVER_FAMILIES)).toHaveLength(14);
  });

  it('serves only declared names, each with HELP and TYPE, counters ending in _total', async () => {
    const { live, end } = exporter();
    const ok = okRecord(CHAT, 40_000, 500_000, [40_000, 50_000]);
    ok.record.rateLimitRemainingTokens = 5;
    end(CHAT, ok);
    live.tick(snapshot(1, 0), { p99Ms: 1, maxMs: 1 }, SERVER);
    const text = await live.metrics();
    const names = new Set(parsePromText(text).map((s) => s.name));
    expect([...names].sort()).toEqual([...LIVE_SERIES_NAMES].sort());
    for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      expect(text).toContain(`# HELP ${match[1]} `);
      if (match[2] === 'counter') expect(match[1]).toMatch(/_total$/);
    }
    expect(live.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });
});
