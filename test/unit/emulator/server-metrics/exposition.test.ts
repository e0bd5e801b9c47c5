/**
 * The exposition text of GET /metrics, read back with parse-prometheus-text-format: label values with
 * the characters the format escapes, bucket placement at a bound (le is "less or equal"), cumulative
 * buckets, KV use from held tokens over slots x context, and a model without capacity (no KV figure).
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { modelMetrics, renderMetrics } from '../../../../src/emulator/server-metrics/exposition.js';
import { ModelMeter, ServerMeters } from '../../../../src/emulator/server-metrics/model-meter.js';
import { builtinCatalog } from '../../../../src/emulator/catalog/builtin-catalog.js';
import { CatalogIndex } from '../../../../src/emulator/catalog/catalog.js';

interface Family {
  readonly name: string;
  readonly type: string;
  readonly metrics: readonly { readonly labels?: Record<string, string>; readonly value?: string }[];
}
const parsePrometheusText = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => Family[];

const NO_WAIT = { priority: 0, default: 0, flex: 0 };

describe('metrics exposition', () => {
  it('escapes label values so a parser reads the model id back', () => {
    const id = 'odd "model"\\ with\nnewline';
    const text = renderMetrics([
      {
        modelId: id,
        load: { modelId: id, running: 3, waiting: { priority: 0, default: 2, flex: 5 }, heldTokens: 0 },
        kvCapacityTokens: Number.NaN,
        meter: new ModelMeter(),
      },
    ]);
    const families = parsePrometheusText(text);
    const running = families.find((f) => f.name === 'vllm:num_requests_running')!;
    expect(running.metrics).toEqual([{ labels: { model_name: id, engine: '0' }, value: '3' }]);
    const waiting = families.find((f) => f.name === 'vllm:num_requests_waiting')!;
    expect(waiting.metrics[0]!.value).toBe('7');
    const kv = families.find((f) => f.name === 'vllm:kv_cache_usage_perc')!;
    expect(kv.metrics[0]!.value).toBe('0');
  });

  it('puts an observation on a bound into that bound, accumulates buckets, and sums exactly', () => {
    const meter = new ModelMeter();
    for (const seconds of [0.3, 0.30000001, 1, 9000]) meter.e2e.observe(seconds);
    const text = renderMetrics([
      { modelId: 'm', load: { modelId: 'm', running: 0, waiting: NO_WAIT, heldTokens: 0 }, kvCapacityTokens: 1, meter },
    ]);
    const bucket = (le: string) =>
      text
        .split('\n')
        .find((line) =>
          line.startsWith(`vllm:e2e_request_latency_seconds_bucket{model_name="m",engine="0",le="${le}"}`),
        );
    expect(bucket('0.3')).toMatch(/ 1$/);
    expect(bucket('0.5')).toMatch(/ 2$/);
    expect(bucket('1.0')).toMatch(/ 3$/);
    expect(bucket('7680.0')).toMatch(/ 3$/);
    expect(bucket('+Inf')).toMatch(/ 4$/);
    expect(text).toContain(
      `vllm:e2e_request_latency_seconds_sum{model_name="m",engine="0"} ${0.3 + 0.30000001 + 1 + 9000}\n`,
    );
    expect(text).toContain('vllm:e2e_request_latency_seconds_count{model_name="m",engine="0"} 4\n');
  });

  it('lists every served model and endpoint, KV use as held tokens over slots x context length', () => {
    const catalog = new CatalogIndex(builtinCatalog('local'));
    const meters = new ServerMeters();
    const spec = catalog.resolve('ep-large-70b-dedicated')!.spec;
    const held = 12_345;
    const models = modelMetrics(
      catalog,
      [{ modelId: 'ep-large-70b-dedicated', running: 1, waiting: NO_WAIT, heldTokens: held }],
      (id) => meters.of(id),
    );
    expect(models.map((m) => m.modelId)).toEqual([
      ...builtinCatalog('local')
        .models.filter((m) => !m.deprecated)
        .map((m) => m.id),
      'ep-large-70b-dedicated',
    ]);
    const kv = parsePrometheusText(renderMetrics(models)).find((f) => f.name === 'vllm:kv_cache_usage_perc')!;
    const endpoint = kv.metrics.find((m) => m.labels?.model_name === 'ep-large-70b-dedicated')!;
    expect(Number(endpoint.value)).toBe(held / (spec.capacity.slots * spec.limits.maxContextLength));
    expect(kv.metrics.filter((m) => m.value === '0')).toHaveLength(models.length - 1);
  });
});
