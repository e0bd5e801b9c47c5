/**
 * The engines' metric names mapped to common concepts (running, waiting, KV-cache use, preemptions,
 * prefix-cache hit ratio, token rates, server TTFT/queue/ITL histograms, GPU use, memory, power, energy):
 * the vocabulary of each engine's /metrics, as data. `auto` recognises the engine from the first scrape's
 * names (detectPreset). The scraper keeps only the names a preset uses (plus the profile's `metrics:`); the
 * per-window reduction is aggregate/server-metrics/server-window.ts.
 *
 * A concept lists alternatives, newest name first: the first one a scrape has is used (vLLM renamed
 * `gpu_cache_usage_perc` to `kv_cache_usage_perc`), never both. `match` selects series by label (TensorRT-LLM
 * puts several quantities in one family); `scale` converts to the concept's unit.
 */
import type { ServerConcept } from '../../metrics/server-concepts.js';
import type { ServerMetricsPreset } from '../../profile/resolved-profile.js';

/** One series family a concept reads. */
export interface ConceptSource {
  /** The sample name as exposed (`_total` included for counters; a histogram's base name without `_bucket`). */
  readonly name: string;
  /** Only the series with these label values. */
  readonly match?: Readonly<Record<string, string>>;
  /** Multiplies each value into the concept's unit (default 1). */
  readonly scale?: number;
}

/**
 * How a concept is read: a gauge (last/max/mean over the window; label sets combined by `combine`), a
 * counter (delta and rate over the window; label sets summed), a ratio of two counters' deltas (hits /
 * queries), or a histogram (per-window quantiles from bucket deltas; label sets summed per `le`).
 */
export type ConceptRule =
  | { readonly kind: 'gauge'; readonly combine: 'sum' | 'max' | 'mean'; readonly sources: readonly ConceptSource[] }
  | { readonly kind: 'counter'; readonly sources: readonly ConceptSource[] }
  | {
      readonly kind: 'ratio';
      readonly pairs: readonly { readonly hits: ConceptSource; readonly queries: ConceptSource }[];
    }
  | { readonly kind: 'histogram'; readonly sources: readonly ConceptSource[] };

export type EngineName = Exclude<ServerMetricsPreset, 'auto'>;
export type PresetRules = Readonly<Partial<Record<ServerConcept, ConceptRule>>>;

const gauge = (combine: 'sum' | 'max' | 'mean', ...sources: ConceptSource[]): ConceptRule => ({
  kind: 'gauge',
  combine,
  sources,
});
const counter = (...sources: ConceptSource[]): ConceptRule => ({ kind: 'counter', sources });
const histogram = (...names: string[]): ConceptRule => ({
  kind: 'histogram',
  // Engines expose seconds; the concepts are in ms.
  sources: names.map((name) => ({ name, scale: 1000 })),
});
const ratio = (...pairs: [string, string][]): ConceptRule => ({
  kind: 'ratio',
  pairs: pairs.map(([hits, queries]) => ({ hits: { name: hits }, queries: { name: queries } })),
});

/** NVIDIA DCGM exporter fields, shared by `dcgm` (https://docs.nvidia.com/datacenter/dcgm/latest/dcgm-api/dcgm-api-field-ids.html). */
const DCGM: PresetRules = {
  // DCGM_FI_DEV_GPU_UTIL: percent 0..100, per GPU (label gpu): the mean over GPUs.
  gpu_util: gauge('mean', { name: 'DCGM_FI_DEV_GPU_UTIL', scale: 0.01 }),
  // DCGM_FI_DEV_FB_USED: framebuffer used, MiB, per GPU: summed, in bytes.
  gpu_memory_used: gauge('sum', { name: 'DCGM_FI_DEV_FB_USED', scale: 1024 * 1024 }),
  // DCGM_FI_DEV_POWER_USAGE: W, per GPU: summed.
  power_w: gauge('sum', { name: 'DCGM_FI_DEV_POWER_USAGE' }),
  // DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION: mJ since boot, a counter per GPU: summed, in J.
  energy_j: counter({ name: 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', scale: 0.001 }),
};

/**
 * Each engine's names. Sources: vLLM https://docs.vllm.ai/en/stable/usage/metrics/ (and v0.4-v0.8
 * /serving/metrics.html for the older names); SGLang https://docs.sglang.io/references/production_metrics.html;
 * TGI https://huggingface.co/docs/text-generation-inference/reference/metrics; llama.cpp server
 * tools/server/README.md "GET /metrics"; Triton https://github.com/triton-inference-server/server
 * docs/user_guide/metrics.md; TensorRT-LLM backend https://github.com/triton-inference-server/tensorrtllm_backend
 * README.md "Triton Metrics"; Dynamo https://docs.nvidia.com/dynamo/latest/observability/metrics.html.
 */
export const ENGINE_PRESETS: Readonly<Record<EngineName, PresetRules>> = {
  vllm: {
    running: gauge('sum', { name: 'vllm:num_requests_running' }),
    waiting: gauge('sum', { name: 'vllm:num_requests_waiting' }),
    // 0..1 despite "perc"; gpu_cache_usage_perc before v0.10 (V0 engine).
    kv_cache_usage: gauge('max', { name: 'vllm:kv_cache_usage_perc' }, { name: 'vllm:gpu_cache_usage_perc' }),
    preemptions: counter({ name: 'vllm:num_preemptions_total' }),
    // V1 engine; gpu_prefix_cache_* in v0.8-v0.10.
    prefix_cache_hit_ratio: ratio(
      ['vllm:prefix_cache_hits_total', 'vllm:prefix_cache_queries_total'],
      ['vllm:gpu_prefix_cache_hits_total', 'vllm:gpu_prefix_cache_queries_total'],
    ),
    prompt_tokens_per_s: counter({ name: 'vllm:prompt_tokens_total' }),
    generation_tokens_per_s: counter({ name: 'vllm:generation_tokens_total' }),
    server_ttft: histogram('vllm:time_to_first_token_seconds'),
    server_queue_time: histogram('vllm:request_queue_time_seconds'),
    // inter_token_latency_seconds since v0.10; time_per_output_token_seconds before.
    server_itl: histogram('vllm:inter_token_latency_seconds', 'vllm:time_per_output_token_seconds'),
  },
  sglang: {
    running: gauge('sum', { name: 'sglang:num_running_reqs' }),
    waiting: gauge('sum', { name: 'sglang:num_queue_reqs' }),
    // Token (KV) pool use, 0..1.
    kv_cache_usage: gauge('max', { name: 'sglang:token_usage' }),
    // Requests retracted (evicted from the batch to free KV): SGLang's preemption.
    preemptions: counter({ name: 'sglang:num_retracted_reqs_total' }),
    // A gauge SGLang computes itself (radix-cache hits over the recent batches).
    prefix_cache_hit_ratio: gauge('mean', { name: 'sglang:cache_hit_rate' }),
    prompt_tokens_per_s: counter({ name: 'sglang:prompt_tokens_total' }),
    generation_tokens_per_s: counter({ name: 'sglang:generation_tokens_total' }),
    server_ttft: histogram('sglang:time_to_first_token_seconds'),
    server_queue_time: histogram('sglang:queue_time_seconds'),
    server_itl: histogram('sglang:inter_token_latency_seconds', 'sglang:time_per_output_token_seconds'),
  },
  tgi: {
    running: gauge('sum', { name: 'tgi_batch_current_size' }),
    waiting: gauge('sum', { name: 'tgi_queue_size' }),
    // Token counts are histograms of lengths per request: their _sum is a token counter.
    prompt_tokens_per_s: counter({ name: 'tgi_request_input_length_sum' }),
    generation_tokens_per_s: counter({ name: 'tgi_request_generated_tokens_sum' }),
    server_queue_time: histogram('tgi_request_queue_duration'),
    server_itl: histogram('tgi_request_mean_time_per_token_duration'),
  },
  llamacpp: {
    running: gauge('sum', { name: 'llamacpp:requests_processing' }),
    waiting: gauge('sum', { name: 'llamacpp:requests_deferred' }),
    kv_cache_usage: gauge('max', { name: 'llamacpp:kv_cache_usage_ratio' }),
    prompt_tokens_per_s: counter({ name: 'llamacpp:prompt_tokens_total' }),
    generation_tokens_per_s: counter({ name: 'llamacpp:tokens_predicted_total' }),
  },
  trtllm: {
    // The TensorRT-LLM backend of Triton: one family per kind, the quantity in a label.
    running: gauge('sum', { name: 'nv_trt_llm_request_metrics', match: { request_type: 'active' } }),
    waiting: gauge(
      'sum',
      { name: 'nv_trt_llm_request_metrics', match: { request_type: 'waiting' } },
      { name: 'nv_inference_pending_request_count' },
    ),
    kv_cache_usage: gauge('max', {
      name: 'nv_trt_llm_kv_cache_block_metrics',
      match: { kv_cache_block_type: 'fraction' },
    }),
    gpu_util: gauge('mean', { name: 'nv_gpu_utilization' }),
    gpu_memory_used: gauge('sum', { name: 'nv_gpu_memory_used_bytes' }),
    power_w: gauge('sum', { name: 'nv_gpu_power_usage' }),
    energy_j: counter({ name: 'nv_energy_consumption' }),
  },
  triton: {
    waiting: gauge('sum', { name: 'nv_inference_pending_request_count' }),
    // Triton's GPU metrics (0..1, bytes, W, J since start).
    gpu_util: gauge('mean', { name: 'nv_gpu_utilization' }),
    gpu_memory_used: gauge('sum', { name: 'nv_gpu_memory_used_bytes' }),
    power_w: gauge('sum', { name: 'nv_gpu_power_usage' }),
    energy_j: counter({ name: 'nv_energy_consumption' }),
  },
  dynamo: {
    // The frontend's view; a worker's /metrics also passes the engine's own names through (use that preset).
    // active_requests replaces inflight_requests (deprecated) in recent releases.
    running: gauge('sum', { name: 'dynamo_frontend_active_requests' }, { name: 'dynamo_frontend_inflight_requests' }),
    waiting: gauge('sum', { name: 'dynamo_frontend_queued_requests' }),
    server_ttft: histogram('dynamo_frontend_time_to_first_token_seconds'),
    server_itl: histogram('dynamo_frontend_inter_token_latency_seconds'),
  },
  dcgm: DCGM,
};

/**
 * The engine whose names a scrape has, most specific first (a Triton with the TensorRT-LLM backend also
 * exposes nv_inference_*; a Dynamo worker passes vllm:* through); null when none is recognised.
 */
export function detectPreset(names: Iterable<string>): EngineName | null {
  const prefixes: readonly [string, EngineName][] = [
    ['vllm:', 'vllm'],
    ['sglang:', 'sglang'],
    ['llamacpp:', 'llamacpp'],
    ['tgi_', 'tgi'],
    ['nv_trt_llm_', 'trtllm'],
    ['dynamo_frontend_', 'dynamo'],
    ['nv_inference_', 'triton'],
    ['DCGM_FI_', 'dcgm'],
  ];
  const seen = new Set<EngineName>();
  for (const name of names) for (const [prefix, engine] of prefixes) if (name.startsWith(prefix)) seen.add(engine);
  return prefixes.find(([, engine]) => seen.has(engine))?.[1] ?? null;
}

/** Every sample name a preset reads (a histogram's `_bucket`, `_sum`, `_count`), for the scraper to keep. */
export function presetSampleNames(rules: PresetRules): Set<string> {
  const names = new Set<string>();
  for (const rule of Object.values(rules)) {
    if (rule === undefined) continue;
    if (rule.kind === 'ratio') {
      for (const pair of rule.pairs) names.add(pair.hits.name).add(pair.queries.name);
    } else if (rule.kind === 'histogram') {
      for (const s of rule.sources) names.add(`${s.name}_bucket`).add(`${s.name}_sum`).add(`${s.name}_count`);
    } else for (const s of rule.sources) names.add(s.name);
  }
  return names;
}
