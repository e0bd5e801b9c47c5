/**
 * The live Prometheus numbers of one group (scenario x model x tier ...): its histograms, counters and
 * rate-limit gauges, with every label set made once when the group is first seen, so adding a finished
 * request touches numbers only (no label strings, no hashing: prom-client's own metrics hash their labels
 * on every observation).
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
  readonly labels: LiveLabels;
  readonly ttft: LabelledHistogram;
  readonly itl: LabelledHistogram;
  readonly e2e: LabelledHistogram;
  readonly scheduleLag: LabelledHistogram;
  /** Requests by outcome, in OUTCOMES order, and their label sets. */
  readonly outcomes = new Float64Array(OUTCOMES.length);
  readonly outcomeLabels: readonly LiveLabels[];
  /** Failed and throttled requests by error class, in ERROR_CLASSES order, and their label sets. */
  readonly errors = new Float64Array(ERROR_CLASSES.length);
  readonly errorLabels: readonly LiveLabels[];
  inputTokens = 0;
  outputTokens = 0;
  /** The last `x-ratelimit-remaining-*-minute` the target sent; NaN until one came. */
  rateLimitRemainingRequests = Number.NaN;
  rateLimitRemainingTokens = Number.NaN;

  constructor(labels: LiveLabels) {
    this.labels = labels;
    this.ttft = labelledHistogram(labels, LATENCY_BUCKETS_S);
    this.itl = labelledHistogram(labels, ITL_BUCKETS_S);
    this.e2e = labelledHistogram(labels, LATENCY_BUCKETS_S);
    this.scheduleLag = labelledHistogram(labels, SCHEDULE_LAG_BUCKETS_S);
    this.outcomeLabels = OUTCOMES.map((outcome) => ({ ...labels, outcome }));
    this.errorLabels = ERROR_CLASSES.map((errorClass) => ({ ...labels, class: errorClass }));
  }

  /**
   * A measured request ended: counted as the collector counts it (latencies, every ITL gap and tokens of
   * ok requests; schedule lag of every request that was sent; errors by class, 429s as throttled).
   */
  add(record: RequestRecord, values: RecordedValues): void {
    this.scheduleLag.histogram.observeUs(values.schedule_lag_ms);
    if (!Number.isNaN(record.rateLimitRemainingRequests))
      this.rateLimitRemainingRequests = record.rateLimitRemainingRequests;
    if (!Number.isNaN(record.rateLimitRemainingTokens)) this.rateLimitRemainingTokens = record.rateLimitRemainingTokens;
    const errorClass = record.errorClass;
    if (errorClass !== null) {
      const outcome = errorClass === 'http_429' ? 2 : 1;
      this.outcomes[outcome] = (this.outcomes[outcome] as number) + 1;
      const index = ERROR_CLASSES.indexOf(errorClass);
      this.errors[index] = (this.errors[index] as number) + 1;
      return;
    }
    this.outcomes[0] = (this.outcomes[0] as number) + 1;
    this.ttft.histogram.observeUs(values.ttft_ms);
    this.e2e.histogram.observeUs(values.e2e_ms);
    const gaps = itlGapCount(record);
    for (let i = 0; i < gaps; i++) this.itl.histogram.observeUs(itlGapUs(record, i));
    if (!Number.isNaN(values.input_tokens)) this.inputTokens += values.input_tokens;
    if (!Number.isNaN(values.output_tokens)) this.outputTokens += values.output_tokens;
  }
}
