/**
 * A threshold's value on a group while the run is still going, read straight from the collector's live
 * histograms and counters: no histogram is copied or encoded, so checking every second costs a few
 * percentile look-ups. The numbers are those the group's final summary would have at this moment (same
 * percentile rule and rounding as histogram.ts metricStatsFromHistogram, same rates as GroupAccumulator).
 */
import type { MetricName } from '../metrics/metric-registry.js';
import type { GroupSummary } from '../metrics/run-summary.js';
import type { ResolvedGroup, ThresholdSpec } from '../profile/resolved-profile.js';
import { type Histogram, metricScale } from './histogram.js';
import type { ProgressWindow } from './progress-window.js';
import { GROUP_VALUES, type GroupRates } from './thresholds.js';

/**
 * What the run's live readers (thresholds and early stops, the cost meter, /metrics, the dashboard) read of
 * one group during a run, in place: the collector's own numbers (group-accumulator.ts's GroupAccumulator is
 * one), so every reader shows the same counts as the summary.
 */
export interface LiveGroup {
  readonly group: ResolvedGroup;
  readonly ok: number;
  /** Failed requests, 429s aside (the collector classifies each request once). */
  readonly failed: number;
  /** Requests answered 429 in the end (throttled, not failed). */
  readonly throttled: number;
  /** Failed and throttled requests by error class. */
  readonly errors: Readonly<Record<string, number>>;
  /** Its last seconds (progress-window.ts) for the first GROUP_WINDOWS groups; null for the others. */
  readonly window: Pick<ProgressWindow, 'read'> | null;
  /** Exact token totals of its ok requests (what cost is priced on). */
  readonly inputTokens: number;
  readonly outputTokens: number;
  histogram(metric: MetricName): Histogram | undefined;
  rates(): Pick<GroupSummary, 'error_rate' | 'throughput' | 'checks'>;
}

/** The percentile each stat reads (mean is the histogram's own). */
const PERCENTILE_OF_STAT: Readonly<Record<string, number>> = {
  min: 0,
  p50: 50,
  p90: 90,
  p95: 95,
  p99: 99,
  p999: 99.9,
  max: 100,
};

/**
 * The value `spec` compares on `live` now, or null when the group has none yet (no request ended, or none
 * with this metric): a check that cannot be made yet must not stop a run.
 */
export function liveThresholdValue(spec: ThresholdSpec, live: LiveGroup): number | null {
  if (live.ok + live.failed === 0) return null;
  if (spec.stat === null) {
    const read = (GROUP_VALUES as Record<string, ((g: GroupRates) => number | null) | undefined>)[spec.metric];
    return read ? read(live.rates()) : null;
  }
  const histogram = live.histogram(spec.metric as MetricName);
  if (histogram === undefined || histogram.totalCount === 0) return null;
  const raw =
    spec.stat === 'mean' ? histogram.mean : histogram.getValueAtPercentile(PERCENTILE_OF_STAT[spec.stat] ?? NaN);
  const value = Math.round((raw / metricScale(spec.metric as MetricName)) * 1000) / 1000;
  return Number.isFinite(value) ? value : null;
}
