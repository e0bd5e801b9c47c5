/**
 * One block of time of a capacity step (1 s by default): how many of its requests ended ok or failed, and
 * an HDR histogram of each latency an SLO may name. The sequential test reads a block's exceedance of each
 * objective from these, and `capacity --reevaluate` reads the very same stored histograms: a new SLO is
 * answered offline by replaying the test on them, and the same SLO gives the same decisions as online.
 * A failed request (error, timeout, 429) exceeds every objective; an ok request without a value for a
 * metric (no time_info, a one-token answer) exceeds none. Latencies exceed above their limit;
 * fluidity_index (higher is better) below it: `fluidity_index.p1: 0.9` counts requests under 0.9.
 */
import { createHistogram, decodeHistogram, encodeHistogram, type Histogram } from '../../aggregate/histogram.js';
import { countAbove } from '../../aggregate/histogram-count.js';
import type { CapacityObjective } from '../../aggregate/capacity/capacity-slo.js';
import type { RequestRecord } from '../../client/request-record.js';
import { isOk } from '../../measure/request-status.js';
import { itlGapCount, itlGapUs } from '../../measure/request-timings.js';
import type { StoredBlock } from '../../metrics/capacity-summary.js';
import { lowerIsBetter, metricDefinition } from '../../metrics/metric-registry.js';
import { RECORDED_KEY, type RecordedValues, type RequestMetricName } from '../../metrics/request-values.js';

/** The metrics every block keeps, so that a new SLO on any of them can be answered offline. */
export const BLOCK_METRICS = [
  'ttfb_ms',
  'ttft_ms',
  'ttfo_ms',
  'tpot_ms',
  'itl_ms',
  'e2e_ms',
  'fluidity_index',
] as const;
export type BlockMetric = (typeof BLOCK_METRICS)[number];

export type { StoredBlock } from '../../metrics/capacity-summary.js';

export interface Exceedance {
  readonly exceeded: number;
  readonly total: number;
}

export class StepBlock {
  ok = 0;
  failed = 0;
  readonly #histograms = new Map<BlockMetric, Histogram>();

  /** A finished request of this block. */
  add(record: RequestRecord, values: RecordedValues): void {
    if (!isOk(record)) {
      this.failed++;
      return;
    }
    this.ok++;
    for (const metric of BLOCK_METRICS) {
      if (metric === 'itl_ms') {
        const gaps = itlGapCount(record);
        for (let i = 0; i < gaps; i++) this.#record(metric, itlGapUs(record, i));
      } else {
        const value = values[RECORDED_KEY[metric as RequestMetricName]];
        if (!Number.isNaN(value)) this.#record(metric, value);
      }
    }
  }

  /** Of the block's observations of the objective, how many exceeded it (failed requests always do). */
  exceedance(objective: CapacityObjective): Exceedance {
    if (objective.metric === 'error_rate') return { exceeded: this.failed, total: this.ok + this.failed };
    const histogram = this.#histograms.get(objective.metric as BlockMetric);
    const above = histogram === undefined ? 0 : countBeyond(histogram, objective);
    // ITL has one observation per gap; every other latency one per request.
    const observations = objective.metric === 'itl_ms' ? (histogram?.totalCount ?? 0) : this.ok;
    return { exceeded: this.failed + above, total: this.failed + observations };
  }

  get requests(): number {
    return this.ok + this.failed;
  }

  histogram(metric: BlockMetric): Histogram | undefined {
    return this.#histograms.get(metric);
  }

  store(): StoredBlock {
    const histograms: Partial<Record<BlockMetric, string>> = {};
    for (const [metric, histogram] of this.#histograms) histograms[metric] = encodeHistogram(histogram);
    return { ok: this.ok, failed: this.failed, histograms };
  }

  static restore(stored: StoredBlock): StepBlock {
    const block = new StepBlock();
    block.ok = stored.ok;
    block.failed = stored.failed;
    for (const metric of BLOCK_METRICS) {
      const encoded = stored.histograms[metric];
      if (encoded !== undefined) block.#histograms.set(metric, decodeHistogram(encoded));
    }
    return block;
  }

  #record(metric: BlockMetric, valueUs: number): void {
    let histogram = this.#histograms.get(metric);
    if (histogram === undefined) {
      histogram = createHistogram();
      this.#histograms.set(metric, histogram);
    }
    // A fluidity index of 0 is a value (every deadline missed), not a clamped latency.
    histogram.recordValue(Math.max(metric === 'fluidity_index' ? 0 : 1, Math.round(valueUs)));
  }
}

/**
 * Values on the wrong side of the objective's limit (limit x the metric's scale, in recorded units):
 * above it for latencies, below it for a higher-is-better metric. The latter's recorded values are
 * integers (fluidity_index x 1000, 0..1000), exact in the histogram, so "below L" is "not above
 * ceil(L) - 1".
 */
function countBeyond(histogram: Histogram, objective: CapacityObjective): number {
  const scale = metricDefinition(objective.metric)?.scale ?? 1000;
  if (lowerIsBetter(objective.metric)) return countAbove(histogram, objective.limit * scale);
  // Rounded to the grid first: 0.57 x 1000 is 570.0000000000001, and 570 is not below 0.57.
  const limit = Math.ceil(Math.round(objective.limit * scale * 1e6) / 1e6);
  return histogram.totalCount - countAbove(histogram, limit - 1);
}
