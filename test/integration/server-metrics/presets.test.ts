/**
 * Each preset (vllm, sglang, tgi, llamacpp, dcgm, triton, trtllm, dynamo) against a purpose-built endpoint speaking its engine's names with known values per step
 * (test/helpers/engine-metrics-server.ts), over real sockets: `auto` recognises the engine, and the window
 * between a scrape of step 1 and one of step 4 gives exactly the concepts those steps imply (gauges at step
 * 4, counters' increases over three steps and their rate over the scrapes' own times, the hit ratio from the
 * counters' increases, histogram quantiles from the buckets' increases); label filters keep one model.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { serverWindow, type ConceptValue } from '../../../src/aggregate/server-metrics/server-window.js';
import type { ServerConcept } from '../../../src/metrics/server-concepts.js';
import { startServerMetrics, type EndpointLog, type ServerScrape } from '../../../src/client/server-metrics/scraper.js';
import type { ServerMetricsSpec } from '../../../src/profile/resolved-profile.js';
import { systemClock } from '../../../src/util/clock.js';
import {
  type EngineBody,
  type EngineMetricsServer,
  endpointSpec,
  stepOf,
  knownValues,
  startEngineMetricsServer,
} from '../../helpers/engine-metrics-server.js';
import { until } from '../../helpers/until.js';

const servers: EngineMetricsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Scrapes `engine` at step 1, then at step 4; the log and the window from the last step-1 scrape to the first step-4 one. */
async function scrapeSteps(engine: EngineBody, overrides: Partial<ServerMetricsSpec> = {}) {
  const server = await startEngineMetricsServer(engine);
  servers.push(server);
  server.step = 1;
  const session = startServerMetrics([endpointSpec(server.url, overrides)], { clock: systemClock, env: {} });
  const log = session.logs[0] as EndpointLog;
  await until(() => log.scrapes.some((s) => stepOf(s) === 1), 'a scrape of step 1');
  server.step = 4;
  await until(() => log.scrapes.some((s) => stepOf(s) === 4), 'a scrape of step 4');
  await session.stop();
  const base = log.scrapes.filter((s) => stepOf(s) === 1).at(-1) as ServerScrape;
  const end = log.scrapes.find((s) => stepOf(s) === 4) as ServerScrape;
  const window = serverWindow(log, base.startUs, end.startUs);
  return { log, window, seconds: (end.startUs - base.startUs) / 1e6 };
}

const at4 = knownValues(4);
const d = (key: keyof ReturnType<typeof knownValues>): number => knownValues(4)[key] - knownValues(1)[key];

function gauge(value: number, sources: string[]) {
  return { kind: 'gauge', last: value, min: value, max: value, mean: value, sources };
}

function counter(delta: number, seconds: number, sources: string[]) {
  return { kind: 'counter', delta, perS: delta / seconds, sources };
}

/** Three steps of the helper's histogram (x factor): 4, 4, 2 observations per step in its three buckets. */
function histogramOf(concepts: Partial<Record<ServerConcept, ConceptValue>>, concept: ServerConcept, factor: number) {
  const value = concepts[concept];
  if (value?.kind !== 'histogram') throw new Error(`${concept}: ${JSON.stringify(value)}`);
  const n = 3 * factor;
  expect(value.count).toBe(10 * n);
  // Sum 2.4 s per step and factor: the mean in ms.
  expect(value.mean).toBeCloseTo((2400 * n) / (10 * n), 9);
  // p50 at rank 5n in (100, 500] ms holding 4n from 4n: 100 + 400 * (5n - 4n) / 4n = 200.
  expect(value.p50).toBeCloseTo(200, 9);
  // p90 at rank 9n in (500, 1000] holding 2n from 8n: 500 + 500 * (9n - 8n) / 2n = 750.
  expect(value.p90).toBeCloseTo(750, 9);
  expect(value.p99).toBeCloseTo(500 + (500 * (9.9 * n - 8 * n)) / (2 * n), 9);
  return value;
}

describe('presets over a window of known values', () => {
  it('vllm: recognised by auto; label sets summed (KV: the max); ratio and rates from deltas; TTFT and queue time quantiles', async () => {
    const { log, window, seconds } = await scrapeSteps('vllm');
    expect(log.engine).toBe('vllm');
    const c = window.concepts;
    expect(c.running).toEqual(gauge(at4.running * 3, ['vllm:num_requests_running']));
    expect(c.waiting).toEqual(gauge(at4.waiting * 3, ['vllm:num_requests_waiting']));
    expect(c.kv_cache_usage).toEqual(gauge(at4.kv, ['vllm:kv_cache_usage_perc']));
    expect(c.preemptions).toEqual(counter(d('preemptions') * 3, seconds, ['vllm:num_preemptions_total']));
    expect(c.prefix_cache_hit_ratio).toEqual({
      kind: 'ratio',
      value: 0.75,
      hits: d('hits') * 3,
      queries: d('queries') * 3,
      sources: ['vllm:prefix_cache_hits_total', 'vllm:prefix_cache_queries_total'],
    });
    expect(c.prompt_tokens_per_s).toEqual(counter(d('promptTokens') * 3, seconds, ['vllm:prompt_tokens_total']));
    expect(c.generation_tokens_per_s).toEqual(
      counter(d('generationTokens') * 3, seconds, ['vllm:generation_tokens_total']),
    );
    expect(histogramOf(c, 'server_ttft', 3).sources).toEqual([
      'vllm:time_to_first_token_seconds_bucket',
      'vllm:time_to_first_token_seconds_sum',
      'vllm:time_to_first_token_seconds_count',
    ]);
    histogramOf(c, 'server_queue_time', 3);
    // Not exposed by this server: absent, not zero.
    expect(c.server_itl).toBeUndefined();
    expect(c.gpu_util).toBeUndefined();
    // Only what the preset and `metrics:` name is kept (no _created, no info gauges).
    const kept = new Set(log.scrapes.flatMap((s) => s.samples.map((x) => x.name)));
    expect(kept.has('vllm:prompt_tokens_created')).toBe(false);
    expect(kept.has('vllm:cache_config_info')).toBe(false);
    // test_step is a `# TYPE gauge`: reduced as one (an increase would mean nothing).
    expect(window.extras).toEqual({ test_step: gauge(4, ['test_step']) });
    expect(window.scrapes).toBe(1);
    expect(window.failures).toBe(0);
  });

  it('vllm with the older names (gpu_cache_usage_perc, gpu_prefix_cache_*)', async () => {
    const { window } = await scrapeSteps('vllm-old');
    expect(window.concepts.kv_cache_usage).toEqual(gauge(at4.kv, ['vllm:gpu_cache_usage_perc']));
    expect(window.concepts.prefix_cache_hit_ratio?.sources).toEqual([
      'vllm:gpu_prefix_cache_hits_total',
      'vllm:gpu_prefix_cache_queries_total',
    ]);
  });

  it('labels: { model_name: a } keeps one model', async () => {
    const { window, seconds } = await scrapeSteps('vllm', { labels: { model_name: 'a' }, preset: 'vllm' });
    const c = window.concepts;
    expect(c.running).toEqual(gauge(at4.running, ['vllm:num_requests_running']));
    expect(c.prompt_tokens_per_s).toEqual(counter(d('promptTokens'), seconds, ['vllm:prompt_tokens_total']));
    histogramOf(c, 'server_ttft', 1);
    // A series without the label (test_step) is kept: the filter selects among the series that have it.
    expect(window.extras.test_step).toMatchObject({ kind: 'gauge', last: 4 });
  });

  it('labels as a /regex/ keep the models it matches', async () => {
    const { window } = await scrapeSteps('vllm', { labels: { model_name: '/^[ab]$/' } });
    expect(window.concepts.running).toEqual(gauge(at4.running * 3, ['vllm:num_requests_running']));
  });

  it('sglang', async () => {
    const { log, window, seconds } = await scrapeSteps('sglang');
    expect(log.engine).toBe('sglang');
    const c = window.concepts;
    expect(c.running).toEqual(gauge(at4.running * 3, ['sglang:num_running_reqs']));
    expect(c.waiting).toEqual(gauge(at4.waiting * 3, ['sglang:num_queue_reqs']));
    expect(c.kv_cache_usage).toEqual(gauge(at4.kv, ['sglang:token_usage']));
    expect(c.prefix_cache_hit_ratio).toEqual(gauge(0.75, ['sglang:cache_hit_rate']));
    expect(c.prompt_tokens_per_s).toEqual(counter(d('promptTokens') * 3, seconds, ['sglang:prompt_tokens_total']));
    expect(c.generation_tokens_per_s).toEqual(
      counter(d('generationTokens') * 3, seconds, ['sglang:generation_tokens_total']),
    );
    histogramOf(c, 'server_ttft', 3);
  });

  it('tgi', async () => {
    const { log, window, seconds } = await scrapeSteps('tgi');
    expect(log.engine).toBe('tgi');
    const c = window.concepts;
    expect(c.running).toEqual(gauge(at4.running, ['tgi_batch_current_size']));
    expect(c.waiting).toEqual(gauge(at4.waiting, ['tgi_queue_size']));
    expect(c.prompt_tokens_per_s).toEqual(counter(d('promptTokens'), seconds, ['tgi_request_input_length_sum']));
    expect(c.generation_tokens_per_s).toEqual(
      counter(d('generationTokens'), seconds, ['tgi_request_generated_tokens_sum']),
    );
    histogramOf(c, 'server_queue_time', 1);
  });

  it('llamacpp', async () => {
    const { log, window, seconds } = await scrapeSteps('llamacpp');
    expect(log.engine).toBe('llamacpp');
    const c = window.concepts;
    expect(c.running).toEqual(gauge(at4.running, ['llamacpp:requests_processing']));
    expect(c.waiting).toEqual(gauge(at4.waiting, ['llamacpp:requests_deferred']));
    expect(c.kv_cache_usage).toEqual(gauge(at4.kv, ['llamacpp:kv_cache_usage_ratio']));
    expect(c.prompt_tokens_per_s).toEqual(counter(d('promptTokens'), seconds, ['llamacpp:prompt_tokens_total']));
    expect(c.generation_tokens_per_s).toEqual(
      counter(d('generationTokens'), seconds, ['llamacpp:tokens_predicted_total']),
    );
  });

  it('dcgm: GPU use the mean over GPUs (0..1), memory in bytes and power summed, energy in J', async () => {
    const { log, window, seconds } = await scrapeSteps('dcgm');
    expect(log.engine).toBe('dcgm');
    const c = window.concepts;
    // GPU 0 at 50 %, GPU 1 at 100 %.
    expect(c.gpu_util).toEqual(
      gauge(((at4.gpuUtilPercent + 2 * at4.gpuUtilPercent) * 0.01) / 2, ['DCGM_FI_DEV_GPU_UTIL']),
    );
    expect(c.gpu_memory_used).toEqual(gauge(2 * at4.fbUsedMiB * 1024 * 1024, ['DCGM_FI_DEV_FB_USED']));
    expect(c.power_w).toEqual(gauge(2 * at4.powerW, ['DCGM_FI_DEV_POWER_USAGE']));
    expect(c.energy_j).toEqual(counter(2 * d('energyMj') * 0.001, seconds, ['DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION']));
  });

  /** Triton's GPU metrics of the helper: GPU 1 twice as busy as GPU 0; memory, power summed; energy in J. */
  function tritonGpus(c: Partial<Record<ServerConcept, ConceptValue>>, seconds: number): void {
    expect(c.gpu_util).toEqual(
      gauge((at4.gpuUtilPercent / 100 + (2 * at4.gpuUtilPercent) / 100) / 2, ['nv_gpu_utilization']),
    );
    expect(c.gpu_memory_used).toEqual(gauge(2 * at4.fbUsedMiB * 1024 * 1024, ['nv_gpu_memory_used_bytes']));
    expect(c.power_w).toEqual(gauge(2 * at4.powerW, ['nv_gpu_power_usage']));
    expect(c.energy_j).toEqual(counter((2 * d('energyMj')) / 1000, seconds, ['nv_energy_consumption']));
  }

  it('triton: the pending requests of every model summed; GPU use the mean (0..1), memory, power and energy', async () => {
    const { log, window, seconds } = await scrapeSteps('triton');
    expect(log.engine).toBe('triton');
    const c = window.concepts;
    expect(c.waiting).toEqual(gauge(at4.waiting * 3, ['nv_inference_pending_request_count']));
    tritonGpus(c, seconds);
    // Triton alone says nothing of running requests or a KV cache: absent, not zero.
    expect(c.running).toBeUndefined();
    expect(c.kv_cache_usage).toBeUndefined();
  });

  it("trtllm: recognised over Triton's names; running, waiting and KV use each from its label of one family", async () => {
    const { log, window, seconds } = await scrapeSteps('trtllm');
    expect(log.engine).toBe('trtllm');
    const c = window.concepts;
    // Only request_type="active" (not scheduled, context or max 512 beside it).
    expect(c.running).toEqual(gauge(at4.running, ['nv_trt_llm_request_metrics{request_type="active"}']));
    // The batcher's own waiting count, before Triton's pending count (100 more in the helper).
    expect(c.waiting).toEqual(gauge(at4.waiting, ['nv_trt_llm_request_metrics{request_type="waiting"}']));
    expect(c.kv_cache_usage).toEqual(
      gauge(at4.kv, ['nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="fraction"}']),
    );
    tritonGpus(c, seconds);
  });

  it("dynamo: the frontend's in-flight and queued requests of every model summed; TTFT and ITL quantiles", async () => {
    const { log, window } = await scrapeSteps('dynamo');
    expect(log.engine).toBe('dynamo');
    const c = window.concepts;
    expect(c.running).toEqual(gauge(at4.running * 3, ['dynamo_frontend_inflight_requests']));
    expect(c.waiting).toEqual(gauge(at4.waiting * 3, ['dynamo_frontend_queued_requests']));
    expect(histogramOf(c, 'server_ttft', 3).sources).toEqual([
      'dynamo_frontend_time_to_first_token_seconds_bucket',
      'dynamo_frontend_time_to_first_token_seconds_sum',
      'dynamo_frontend_time_to_first_token_seconds_count',
    ]);
    expect(histogramOf(c, 'server_itl', 3).sources[0]).toBe('dynamo_frontend_inter_token_latency_seconds_bucket');
    expect(c.server_queue_time).toBeUndefined();
  });

  it('dynamo with the newer active_requests in place of inflight_requests', async () => {
    const { log, window } = await scrapeSteps('dynamo-active');
    expect(log.engine).toBe('dynamo');
    expect(window.concepts.running).toEqual(gauge(at4.running * 3, ['dynamo_frontend_active_requests']));
  });

  it('an explicit preset is used as given, even against another engine (nothing it names is found)', async () => {
    const { log, window } = await scrapeSteps('llamacpp', { preset: 'vllm' });
    expect(log.engine).toBe('vllm');
    expect(window.concepts).toEqual({});
    expect(window.extras.test_step).toMatchObject({ kind: 'gauge', last: 4 });
  });
});
