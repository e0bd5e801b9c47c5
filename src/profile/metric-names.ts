/**
 * The patterns of the metric vocabulary (metrics/metric-registry.ts) that a profile may name in thresholds,
 * `slo` and `compare.tolerances`: the per-request metrics of summary.json with a stat, and the group-level
 * values that have no stat.
 */
import { GROUP_VALUES, METRIC_NAMES, METRIC_STATS } from '../metrics/metric-registry.js';

export { GROUP_VALUES, METRIC_STATS } from '../metrics/metric-registry.js';

/** Per-request metrics (each has every stat of METRIC_STATS). */
export const PER_REQUEST_METRICS: readonly string[] = METRIC_NAMES;

const alternatives = (names: readonly string[]): string => names.map((n) => n.replace(/[.]/g, '\\.')).join('|');

/** `ttft_ms.p99`: a per-request metric with a stat (SLO keys). */
export const METRIC_STAT_PATTERN = `^(?:${alternatives(PER_REQUEST_METRICS)})\\.(?:${alternatives(METRIC_STATS)})$`;

/** A metric with a stat, or a group-level value (compare tolerance keys). */
export const METRIC_OR_GROUP_VALUE_PATTERN = `^(?:(?:${alternatives(PER_REQUEST_METRICS)})\\.(?:${alternatives(METRIC_STATS)})|${alternatives(GROUP_VALUES)})$`;
