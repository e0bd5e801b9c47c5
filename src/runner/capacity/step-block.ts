/**
 * One block of time of a capacity step (1 s by default): how many of its requests ended ok or failed, and
 * an HDR histogram of each latency an SLO may name. The sequential test reads a block's exceedance of each
 * objective from these, and `capacity --reevaluate` reads the very same stored histograms: a new SLO is
 * answered offline by replaying the test on them, and the same SLO gives the same decisions as online.
 * A failed request (error, timeout, 429) exceeds every latency objective; an ok request without a value
 * for a metric (no time_info, a one-token answer) exceeds none.
 */
import { createHistogram, decodeHistogram, encodeHistogram, type Histogram } from '../../aggregate/histogram.js';
import { countAbove } from '../../aggregate/histogram-count.js';
import type { CapacityObjective } from '../../aggregate/capacity/capacity-slo.js';
import type { RequestRecord } from '../../client/request-record.js';
import { isOk } from '../../measure/request-status.js';
import { itlGapCount, itlGapUs } from '../../measure/request-timings.js';
import type { StoredBlock } from '../../metrics/capacity-summary.js';
import type { RecordedValues, RequestMetricName } from '../../metrics/request-values.js';

/** The latencies every block keeps, so that a new SLO on any of them can be answered offline. */
export const BLOCK_METRICS = ['ttfb_ms', 'ttft_ms', 'ttfo_ms', 'tpot_ms', 'itl_ms', 'e2e_ms'] as const;
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
        const value = values[metric as RequestMetricName];
        if (!Number.isNaN(value)) this.#record(metric, value);
      }
    }
  }

  /** Of the block's observations of the objective, how many exceeded it (failed requests always do). */
  exceedance(objective: CapacityObjective): Exceedance {
    if (objective.metric === 'error_rate') return { exceeded: this.failed, total: this.ok + this.failed };
    const histogram = this.#histograms.get(objective.metric as BlockMetric);
    const above = histogram === undefined ? 0 : countAbove(histogram, objective.limit * 1000);
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
    histogram.recordValue(Math.max(1, Math.round(valueUs)));
  }
}
