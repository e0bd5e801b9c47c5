/**
 * The metric vocabulary a profile may name in thresholds, `slo` and `compare.tolerances`: the per-request
 * metrics of summary.json with a stat, and the group-level values that have no stat.
 */
import { LATENCY_METRICS, VALUE_METRICS } from '../report/run-summary.js';

/** Stats of summary.json's MetricStats that a threshold or SLO may name. */
export const METRIC_STATS = ['p50', 'p90', 'p95', 'p99', 'p999', 'mean', 'min', 'max'] as const;

/** Per-request metrics (each has every stat of METRIC_STATS). */
export const PER_REQUEST_METRICS: readonly string[] = [...LATENCY_METRICS, ...VALUE_METRICS];

/** Group-level values: named without a stat. */
export const GROUP_VALUES = ['error_rate', 'requests_per_s', 'output_tokens_per_s', 'total_tokens_per_s', 'goodput_per_s'] as const;


const alternatives = (names: readonly string[]): string => names.map((n) => n.replace(/[.]/g, '\\.')).join('|');

/** `ttft_ms.p99`: a per-request metric with a stat (SLO keys). */
export const METRIC_STAT_PATTERN = `^(?:${alternatives(PER_REQUEST_METRICS)})\\.(?:${alternatives(METRIC_STATS)})$`;

/** A metric with a stat, or a group-level value (compare tolerance keys). */
export const METRIC_OR_GROUP_VALUE_PATTERN = `^(?:(?:${alternatives(PER_REQUEST_METRICS)})\\.(?:${alternatives(METRIC_STATS)})|${alternatives(GROUP_VALUES)})$`;
