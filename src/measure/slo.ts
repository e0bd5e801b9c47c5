/**
 * Per-request SLO checks, for goodput: a request is "good" when it is ok and meets every SLO of the
 * profile. SLO keys are `metric.stat` (`ttft_ms.p99: 500`); per request the stat has one value, the
 * request's own: ttft_ms.p99 <= 500 means this request's TTFT <= 500 ms. For `itl_ms` the request has
 * many gaps, so its own statistic of its gaps is used (itl_ms.p99: the request's p99 gap, nearest rank;
 * itl_ms.max: its largest gap). Latency metrics (`*_ms`) must be at or below the limit; `decode_tps` and
 * `fluidity_index` (higher is better) at or above it: `fluidity_index.p1: 0.9` means this request's
 * fluidity index >= 0.9 (so a group where every request is good has a p1 >= 0.9). A metric the request
 * does not have (no time_info, a one-token answer, no deadlines) does not fail it; group-level keys
 * (error_rate, *_per_s) and token counts are not per-request checks and are ignored here.
 */
import type { RequestRecord } from '../client/request-record.js';
import { LATENCY_METRICS, metricDefinition, type LatencyMetric } from '../metrics/metric-registry.js';
import { RECORDED_KEY, type RecordedValues } from '../metrics/request-values.js';
import { isOk } from './request-status.js';
import { itlGapCount, itlGapUs } from './request-timings.js';

/** Per-request metrics where more is better, checked as a floor: value / scale >= limit. */
const FLOOR_METRICS = ['decode_tps', 'fluidity_index'] as const;
type FloorMetric = (typeof FLOOR_METRICS)[number];

/** Their scales (recorded value per reported unit), looked up once rather than per request. */
const FLOOR_SCALE: Readonly<Record<FloorMetric, number>> = {
  decode_tps: metricDefinition('decode_tps')?.scale ?? 1000,
  fluidity_index: metricDefinition('fluidity_index')?.scale ?? 1000,
};

function isFloorMetric(metric: string): metric is FloorMetric {
  return (FLOOR_METRICS as readonly string[]).includes(metric);
}

/** One parsed SLO entry. */
export interface SloCheck {
  readonly key: string;
  readonly metric: LatencyMetric | FloorMetric;
  readonly stat: string;
  readonly limit: number;
}

/** The SLO entries that apply per request (unknown and group-level keys are left out). */
export function parseSlo(slo: Readonly<Record<string, number>>): SloCheck[] {
  const checks: SloCheck[] = [];
  for (const [key, limit] of Object.entries(slo)) {
    const dot = key.lastIndexOf('.');
    const metric = dot < 0 ? key : key.slice(0, dot);
    const stat = dot < 0 ? 'max' : key.slice(dot + 1);
    if (isFloorMetric(metric) || (LATENCY_METRICS as readonly string[]).includes(metric)) {
      checks.push({ key, metric: metric as SloCheck['metric'], stat, limit });
    }
  }
  return checks;
}

/** Checks requests against an SLO; reuses one scratch buffer for ITL statistics (no allocation per call). */
export interface SloEvaluator {
  readonly checks: readonly SloCheck[];
  /** True when the request is ok and meets every per-request SLO; `values` are its values (request-values.ts). */
  isGood(record: RequestRecord, values: RecordedValues): boolean;
}

export function createSloEvaluator(slo: Readonly<Record<string, number>>): SloEvaluator {
  const checks = parseSlo(slo);
  let scratch = new Float64Array(256);

  const itlStatMs = (record: RequestRecord, stat: string): number => {
    const n = itlGapCount(record);
    if (n < 1) return Number.NaN;
    if (scratch.length < n) scratch = new Float64Array(Math.max(n, scratch.length * 2));
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const gap = itlGapUs(record, i);
      scratch[i] = gap;
      sum += gap;
    }
    const gaps = scratch.subarray(0, n);
    if (stat === 'mean') return sum / n / 1000;
    gaps.sort();
    if (stat === 'min') return (gaps[0] as number) / 1000;
    if (stat === 'max') return (gaps[n - 1] as number) / 1000;
    const percentile = stat === 'p999' ? 99.9 : Number(stat.replace(/^p/, ''));
    if (!Number.isFinite(percentile)) return (gaps[n - 1] as number) / 1000;
    // Nearest rank: the smallest gap with at least `percentile` % of the gaps at or below it.
    const rank = Math.min(n, Math.max(1, Math.ceil((percentile / 100) * n)));
    return (gaps[rank - 1] as number) / 1000;
  };

  return {
    checks,
    isGood(record, values) {
      if (!isOk(record)) return false;
      for (const check of checks) {
        if (isFloorMetric(check.metric)) {
          // NaN compares false: a request without a decode phase or deadlines does not fail it.
          if (values[RECORDED_KEY[check.metric]] / FLOOR_SCALE[check.metric] < check.limit) return false;
          continue;
        }
        const value =
          check.metric === 'itl_ms'
            ? itlStatMs(record, check.stat)
            : values[RECORDED_KEY[check.metric as Exclude<LatencyMetric, 'itl_ms'>]] / 1000;
        // NaN compares false: a metric the request does not have does not fail it.
        if (value > check.limit) return false;
      }
      return true;
    },
  };
}
