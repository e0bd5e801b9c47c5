/**
 * The live Prometheus series of one group (scenario x model x tier ...): its own fixed-bucket histograms
 * and rate-limit gauges, and the label sets of its counters, every label set made once when the group is
 * first seen, so observing a finished request touches numbers only (no label strings, no hashing:
 * prom-client's own metrics hash their labels on every observation). Requests by outcome, errors by class
 * and tokens are not counted here: they are the run collector's, read at scrape time (LiveGroup).
 */
import type { RequestRecord } from '../../client/request-record.js';
import { itlGapCount, itlGapUs } from '../../measure/request-timings.js';
import type { RecordedValues } from '../../metrics/request-values.js';
import type { ResolvedGroup } from '../../profile/resolved-profile.js';
import { ERROR_CLASSES } from '../../protocol/error-classes.js';
import { FixedBucketHistogram } from './fixed-bucket-histogram.js';
import { ITL_BUCKETS_S, LATENCY_BUCKETS_S, SCHEDULE_LAG_BUCKETS_S } from './live-buckets.js';

export type LiveLabels = Readonly<Record<string, string>>;

/** `outcome` label values of inferbench_requests_total, as summary.json counts them (429s apart). */
export const OUTCOMES = ['ok', 'failed', 'throttled'] as const;

/** A histogram with its `le` label sets (one per bound, then +Inf). */
export interface LabelledHistogram {
  readonly histogram: FixedBucketHistogram;
  readonly bucketLabels: readonly LiveLabels[];
}

function labelledHistogram(labels: LiveLabels, boundsS: readonly number[]): LabelledHistogram {
  const les = [...boundsS.map(String), '+Inf'];
  return { histogram: new FixedBucketHistogram(boundsS), bucketLabels: les.map((le) => ({ ...labels, le })) };
}

/** The group labels of every per-group series: the dimensions of its key, and the shard ("" alone). */
export function groupLabels(group: ResolvedGroup, shard: string): LiveLabels {
  return { scenario: group.scenario, model: group.model ?? '', tier: group.tier ?? '', group: group.key, shard };
}

export class LiveGroupSeries {
  /** The group's index in the profile: its numbers in the collector. */
  readonly index: number;
  readonly labels: LiveLabels;
  readonly ttft: LabelledHistogram;
  readonly itl: LabelledHistogram;
  readonly e2e: LabelledHistogram;
  readonly scheduleLag: LabelledHistogram;
  /** Label sets of requests by outcome, in OUTCOMES order. */
  readonly outcomeLabels: readonly LiveLabels[];
  /** Label sets of failed and throttled requests by error class, in ERROR_CLASSES order. */
  readonly errorLabels: readonly LiveLabels[];
  /** The last `x-ratelimit-remaining-*-minute` the target sent; NaN until one came. */
  rateLimitRemainingRequests = Number.NaN;
  rateLimitRemainingTokens = Number.NaN;

  constructor(index: number, labels: LiveLabels) {
    this.index = index;
    this.labels = labels;
    this.ttft = labelledHistogram(labels, LATENCY_BUCKETS_S);
    this.itl = labelledHistogram(labels, ITL_BUCKETS_S);
    this.e2e = labelledHistogram(labels, LATENCY_BUCKETS_S);
    this.scheduleLag = labelledHistogram(labels, SCHEDULE_LAG_BUCKETS_S);
    this.outcomeLabels = OUTCOMES.map((outcome) => ({ ...labels, outcome }));
    this.errorLabels = ERROR_CLASSES.map((errorClass) => ({ ...labels, class: errorClass }));
  }

  /**
   * A measured request ended: observed into the histograms as the collector records it (latencies and
   * every ITL gap of ok requests, schedule lag of every request that was sent), and the rate-limit headroom
   * it brought. Counting it is the collector's.
   */
  observe(record: RequestRecord, values: RecordedValues): void {
    this.scheduleLag.histogram.observeUs(values.schedule_lag_us);
    if (!Number.isNaN(record.rateLimitRemainingRequests))
      this.rateLimitRemainingRequests = record.rateLimitRemainingRequests;
    if (!Number.isNaN(record.rateLimitRemainingTokens)) this.rateLimitRemainingTokens = record.rateLimitRemainingTokens;
    if (record.errorClass !== null) return;
    this.ttft.histogram.observeUs(values.ttft_us);
    this.e2e.histogram.observeUs(values.e2e_us);
    const gaps = itlGapCount(record);
    for (let i = 0; i < gaps; i++) this.itl.histogram.observeUs(itlGapUs(record, i));
  }
}
