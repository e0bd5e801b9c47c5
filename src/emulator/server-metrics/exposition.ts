/**
 * GET /metrics: the emulator's own state in vLLM's metric names and the Prometheus text exposition
 * format 0.0.4, so server metrics can be scraped, and their scraper tested, offline. Like vLLM (v1) every
 * series carries `model_name` and `engine` ("0": one engine per model here); every served model and
 * dedicated endpoint of the catalog has its series from the start, at 0, as a vLLM server has its own.
 *
 * The gauges are read from the engine at scrape time (engine.loads(), O(jobs running)), the counters and
 * histograms from the meters the response writer feeds (model-meter.ts). What each value is derived from
 * is in docs/emulator.md. The queue by tier is a family of its own, `vllm:num_requests_waiting_by_tier`,
 * not a label on `vllm:num_requests_waiting`: a dashboard built for vLLM reads that gauge per model_name,
 * and three series per model there would make it draw three lines or count the queue three times.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FinishReason, ServiceTierUsed } from '../../protocol/chat.js';
import type { CatalogIndex } from '../catalog/catalog.js';
import type { ModelLoad } from '../engine.js';
import type { EmulatorContext } from '../emulator-context.js';
import type { BucketHistogram, ModelMeter } from './model-meter.js';

/** What a Prometheus server sends and expects for the text format. */
export const PROMETHEUS_TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const TIERS: readonly ServiceTierUsed[] = ['priority', 'default', 'flex'];
const FINISH_REASONS: readonly FinishReason[] = ['stop', 'length', 'tool_calls', 'content_filter'];
const NO_LOAD: ModelLoad = { modelId: '', running: 0, waiting: { priority: 0, default: 0, flex: 0 }, heldTokens: 0 };

/** One model's view at scrape time. */
export interface ModelMetrics {
  readonly modelId: string;
  readonly load: ModelLoad;
  /** Tokens of KV the model can hold: slots x context length (NaN when the catalog does not know the id). */
  readonly kvCapacityTokens: number;
  readonly meter: ModelMeter;
}

/** The per-model views of every served catalog model and endpoint, then any other id the engine ran. */
export function modelMetrics(
  catalog: CatalogIndex,
  loads: readonly ModelLoad[],
  meterOf: (modelId: string) => ModelMeter,
): ModelMetrics[] {
  const loadOf = new Map(loads.map((load) => [load.modelId, load]));
  const ids = [
    ...catalog.catalog.models.filter((model) => !model.deprecated).map((model) => model.id),
    ...catalog.catalog.endpoints.map((endpoint) => endpoint.endpointId),
  ].filter((id) => catalog.resolve(id) !== undefined);
  for (const load of loads) if (!ids.includes(load.modelId)) ids.push(load.modelId);
  return ids.map((modelId) => {
    const spec = catalog.resolve(modelId)?.spec;
    return {
      modelId,
      load: loadOf.get(modelId) ?? NO_LOAD,
      kvCapacityTokens: spec === undefined ? Number.NaN : spec.capacity.slots * spec.limits.maxContextLength,
      meter: meterOf(modelId),
    };
  });
}

/** The exposition text of the given models. */
export function renderMetrics(models: readonly ModelMetrics[]): string {
  const out: string[] = [];
  const labels = models.map((model) => `model_name="${escapeLabel(model.modelId)}",engine="0"`);
  const family = (name: string, type: string, help: string, value: (model: ModelMetrics) => number): void => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    models.forEach((model, i) => {
      out.push(`${name}{${labels[i]}} ${formatValue(value(model))}`);
    });
  };
  family('vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.', (m) => m.load.running);
  family(
    'vllm:num_requests_waiting',
    'gauge',
    'Number of requests waiting to be processed.',
    (m) => m.load.waiting.priority + m.load.waiting.default + m.load.waiting.flex,
  );
  out.push(
    '# HELP vllm:num_requests_waiting_by_tier Number of requests waiting to be processed, by service tier (emulator).',
    '# TYPE vllm:num_requests_waiting_by_tier gauge',
  );
  models.forEach((model, i) => {
    for (const tier of TIERS)
      out.push(`vllm:num_requests_waiting_by_tier{${labels[i]},service_tier="${tier}"} ${model.load.waiting[tier]}`);
  });
  family('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', kvUsage);
  family('vllm:num_preemptions_total', 'counter', 'Cumulative number of preemption from the engine.', () => 0);
  family(
    'vllm:prefix_cache_queries_total',
    'counter',
    'Prefix cache queries, in terms of number of queried tokens.',
    (m) => m.meter.prefixCacheQueries,
  );
  family(
    'vllm:prefix_cache_hits_total',
    'counter',
    'Prefix cache hits, in terms of number of cached tokens.',
    (m) => m.meter.prefixCacheHits,
  );
  family('vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', (m) => m.meter.promptTokens);
  family(
    'vllm:generation_tokens_total',
    'counter',
    'Number of generation tokens processed.',
    (m) => m.meter.generationTokens,
  );
  out.push(
    '# HELP vllm:request_success_total Count of successfully processed requests.',
    '# TYPE vllm:request_success_total counter',
  );
  models.forEach((model, i) => {
    for (const reason of FINISH_REASONS)
      out.push(`vllm:request_success_total{${labels[i]},finished_reason="${reason}"} ${model.meter.finished[reason]}`);
  });
  histogram(
    out,
    'vllm:time_to_first_token_seconds',
    'Histogram of time to first token in seconds.',
    models,
    labels,
    (m) => m.ttft,
  );
  histogram(
    out,
    'vllm:request_queue_time_seconds',
    'Histogram of time spent in WAITING phase for request.',
    models,
    labels,
    (m) => m.queueTime,
  );
  histogram(
    out,
    'vllm:e2e_request_latency_seconds',
    'Histogram of e2e request latency in seconds.',
    models,
    labels,
    (m) => m.e2e,
  );
  out.push('');
  return out.join('\n');
}

/** Tokens held by running requests over the tokens a full context in every slot would take. */
function kvUsage(model: ModelMetrics): number {
  if (!(model.kvCapacityTokens > 0)) return 0;
  return Math.min(1, model.load.heldTokens / model.kvCapacityTokens);
}

function histogram(
  out: string[],
  name: string,
  help: string,
  models: readonly ModelMetrics[],
  labels: readonly string[],
  of: (meter: ModelMeter) => BucketHistogram,
): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
  models.forEach((model, i) => {
    const h = of(model.meter);
    let cumulative = 0;
    h.bounds.forEach((bound, b) => {
      cumulative += h.counts[b] as number;
      out.push(`${name}_bucket{${labels[i]},le="${formatBound(bound)}"} ${cumulative}`);
    });
    out.push(`${name}_bucket{${labels[i]},le="+Inf"} ${h.count}`);
    out.push(`${name}_sum{${labels[i]}} ${formatValue(h.sum)}`);
    out.push(`${name}_count{${labels[i]}} ${h.count}`);
  });
}

/** A label value with backslash, double quote and line feed escaped, as the text format requires. */
function escapeLabel(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** A bound as Python's float repr writes it (vLLM's `le="1.0"`), so `le` matches a real vLLM's. */
function formatBound(bound: number): string {
  return Number.isInteger(bound) ? bound.toFixed(1) : String(bound);
}

/** A sample value: JavaScript's shortest round-trip form (`1e-7` and `NaN` parse as the format's floats). */
function formatValue(value: number): string {
  return Number.isFinite(value) ? String(value) : Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
}

/** GET /metrics: no key (like vLLM's and the tcp_warming route); the answer is never cached. */
export function serveMetrics(_req: IncomingMessage, res: ServerResponse, ctx: EmulatorContext): void {
  const models = modelMetrics(ctx.catalog, ctx.engine.loads?.() ?? [], (id) => ctx.meters.of(id));
  const body = renderMetrics(models);
  res.writeHead(200, {
    'content-type': PROMETHEUS_TEXT_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}
