/**
 * Everything one group (scenario x model x tier) accumulates during a run: an HDR histogram per metric
 * (created on first use), request counters by outcome and error class with a few sample messages, token
 * accounting, tiers the server reported, totals for throughput and goodput, the measured window and the
 * per-second time series, and the few facts per ok request that other tools' metrics need (dialects/).
 * `add` runs once per finished request and keeps nothing else of the record.
 */
import type { RequestRecord } from '../client/request-record.js';
import { itlGapCount, itlGapUs } from '../measure/request-timings.js';
import { isTokenMismatch } from '../measure/token-counts.js';
import {
  RECORDED_KEY,
  type RecordedKey,
  type RecordedValues,
  type RequestMetricName,
} from '../metrics/request-values.js';
import type { ResolvedGroup } from '../profile/resolved-profile.js';
import { METRIC_NAMES, type MetricName } from '../metrics/metric-registry.js';
import type { GroupSummary, MetricStats } from '../metrics/run-summary.js';
import {
  createHistogram,
  encodeHistogram,
  metricScale,
  metricStatsFromHistogram,
  type Histogram,
} from './histogram.js';
import { GroupTimeSeries } from './time-series.js';
import { groupDimensions } from './group-dimensions.js';
import { BreakdownAccumulator } from './breakdown-accumulator.js';
import { CheckAccumulator } from './check-accumulator.js';
import { GROUP_WINDOWS, ProgressWindow } from './progress-window.js';
import { DialectFacts } from './dialects/request-facts.js';
import { groupDialects } from './dialects/dialect-registry.js';

/** Recorded for every request that was sent, ok or not (by the collector), or per gap (itl_ms). */
export const EVERY_REQUEST_METRICS: ReadonlySet<string> = new Set([
  'itl_ms',
  'schedule_lag_ms',
  'connect_ms',
  'tls_handshake_ms',
]);

/** The metrics an ok request records from its values, each with the field of RecordedValues that holds it. */
const OK_REQUEST_METRICS: readonly (readonly [RequestMetricName, RecordedKey])[] = METRIC_NAMES.filter(
  (metric): metric is RequestMetricName => !EVERY_REQUEST_METRICS.has(metric),
).map((metric) => [metric, RECORDED_KEY[metric]] as const);

/** Sample messages kept per error class. */
export const ERROR_SAMPLES_PER_CLASS = 3;

export class GroupAccumulator {
  readonly group: ResolvedGroup;
  readonly series: GroupTimeSeries;
  /** Per request label and value (breakdown-accumulator.ts); fed by the collector. */
  readonly breakdowns = new BreakdownAccumulator();
  /** Answer checks per check name (check-accumulator.ts); fed by the collector. */
  readonly checks = new CheckAccumulator();
  /**
   * The ok requests' facts other tools' metrics are computed from (dialects/), kept to the end of the run;
   * null for a group whose API the tools' definitions do not describe (dialect-registry.ts DIALECT_APIS).
   */
  readonly dialects: DialectFacts | null;
  /** The group's last seconds, for the first GROUP_WINDOWS groups when a live view asked (the dashboard's charts); fed by the collector. */
  readonly window: ProgressWindow | null;
  readonly #histograms = new Map<MetricName, Histogram>();
  started = 0;
  inFlight = 0;
  ok = 0;
  failed = 0;
  throttled = 0;
  dropped = 0;
  good = 0;
  readonly errors: Record<string, number> = {};
  /** Attempts of every finished request, and the failed ones that were retried, by class. */
  attempts = 0;
  readonly retried: Record<string, number> = {};
  readonly errorSamples: Record<string, string[]> = {};
  estimatedRequests = 0;
  mismatchedRequests = 0;
  maxMismatch = 0;
  readonly tiersUsed: Record<string, number> = {};
  outputTokens = 0;
  inputTokens = 0;
  /** Inputs of the ok requests that carry inputs (api: embeddings, RequestRecord.inputs); 0 for the others. */
  inputs = 0;
  firstLaunchUs = Number.POSITIVE_INFINITY;
  lastEndUs = Number.NEGATIVE_INFINITY;

  constructor(group: ResolvedGroup, withWindow: boolean, withDialects = true) {
    this.group = group;
    this.dialects = withDialects ? new DialectFacts() : null;
    this.series = new GroupTimeSeries(group.key);
    this.window = withWindow && group.index < GROUP_WINDOWS ? new ProgressWindow() : null;
  }

  /** Records `value` (already in the histogram's integer unit) unless NaN; negatives clamp to 0. */
  record(metric: MetricName, value: number): void {
    if (Number.isNaN(value)) return;
    let histogram = this.#histograms.get(metric);
    if (histogram === undefined) {
      histogram = createHistogram();
      this.#histograms.set(metric, histogram);
    }
    histogram.recordValue(value > 0 ? Math.round(value) : 0);
  }

  histogram(metric: MetricName): Histogram | undefined {
    return this.#histograms.get(metric);
  }

  /** Counts a failed or throttled request's class and keeps a few distinct messages. */
  countError(record: RequestRecord): void {
    const errorClass = record.errorClass as string;
    this.errors[errorClass] = (this.errors[errorClass] ?? 0) + 1;
    const message = record.errorMessage;
    if (message === null) return;
    let samples = this.errorSamples[errorClass];
    if (samples === undefined) {
      samples = [];
      this.errorSamples[errorClass] = samples;
    }
    if (samples.length < ERROR_SAMPLES_PER_CLASS && !samples.includes(message)) samples.push(message);
  }

  /**
   * Counts the attempts of a finished request, whatever its outcome: a 429 or 5xx that a retry recovered
   * from stays visible here. Returns the 429 answers among its retried attempts.
   */
  countAttempts(record: RequestRecord): number {
    this.attempts += record.attempts;
    const retried = record.retriedErrors;
    let throttled = 0;
    for (let i = 0; i < retried.length; i++) {
      const errorClass = retried[i] as string;
      this.retried[errorClass] = (this.retried[errorClass] ?? 0) + 1;
      if (errorClass === 'http_429') throttled++;
    }
    return throttled;
  }

  /**
   * Adds the values of an ok request (derived once: measure/request-values.ts), each metric as recorded;
   * `good`: it met every SLO.
   */
  addOk(record: RequestRecord, values: RecordedValues, good: boolean): void {
    this.ok++;
    if (good) this.good++;
    for (const [metric, key] of OK_REQUEST_METRICS) this.record(metric, values[key]);
    const gaps = itlGapCount(record);
    for (let i = 0; i < gaps; i++) this.record('itl_ms', itlGapUs(record, i));
    const outputTokens = values.output_tokens;
    const inputTokens = values.input_tokens;
    if (!Number.isNaN(outputTokens)) this.outputTokens += outputTokens;
    this.dialects?.add(record, outputTokens);
    if (!Number.isNaN(inputTokens)) this.inputTokens += inputTokens;
    if (!Number.isNaN(record.inputs)) this.inputs += record.inputs;
    if (values.tokensEstimated) this.estimatedRequests++;
    const mismatch = values.tokenMismatch;
    if (!Number.isNaN(mismatch)) {
      if (mismatch > this.maxMismatch) this.maxMismatch = mismatch;
      if (isTokenMismatch(mismatch, outputTokens)) this.mismatchedRequests++;
    }
    if (record.serviceTierUsed !== null)
      this.tiersUsed[record.serviceTierUsed] = (this.tiersUsed[record.serviceTierUsed] ?? 0) + 1;
  }

  /**
   * error_rate, throughput, duration and answer checks as they stand (the summary's; read live by
   * aggregate/live-thresholds.ts).
   */
  rates(): Pick<GroupSummary, 'error_rate' | 'throughput' | 'duration_ms' | 'checks'> {
    const durationMs = this.lastEndUs > this.firstLaunchUs ? (this.lastEndUs - this.firstLaunchUs) / 1000 : 0;
    const perS = (n: number): number => (durationMs > 0 ? round3(n / (durationMs / 1000)) : 0);
    return {
      error_rate: this.ok + this.failed > 0 ? this.failed / (this.ok + this.failed) : 0,
      throughput: {
        requests_per_s: perS(this.ok),
        output_tokens_per_s: perS(this.outputTokens),
        total_tokens_per_s: perS(this.outputTokens + this.inputTokens),
        goodput_per_s: perS(this.good),
        // api: embeddings only: a generating group's summary stays as it was.
        ...(this.inputs > 0 ? { inputs_per_s: perS(this.inputs), input_tokens_per_s: perS(this.inputTokens) } : {}),
      },
      duration_ms: round3(durationMs),
      checks: this.checks.summary(),
    };
  }

  /** The group's final summary (stats and encoded histograms of every metric that has values). */
  summary(): GroupSummary {
    const { error_rate, throughput, duration_ms } = this.rates();
    const metrics: Partial<Record<MetricName, MetricStats>> = {};
    const histograms: Partial<Record<MetricName, string>> = {};
    for (const metric of METRIC_NAMES) {
      const histogram = this.#histograms.get(metric);
      if (!histogram || histogram.totalCount === 0) continue;
      metrics[metric] = metricStatsFromHistogram(histogram, metricScale(metric));
      histograms[metric] = encodeHistogram(histogram);
    }
    const group = this.group;
    return {
      scenario: group.scenario,
      model: group.model ?? '',
      tier: group.tier,
      key: group.key,
      ...groupDimensions(group.mixClass ?? null, group.reasoningEffort ?? null),
      requests: {
        ok: this.ok,
        failed: this.failed,
        dropped: this.dropped,
        errors: { ...this.errors },
        attempts: this.attempts,
        retried: { ...this.retried },
        error_samples: Object.fromEntries(Object.entries(this.errorSamples).map(([k, v]) => [k, [...v]])),
      },
      error_rate,
      throughput,
      duration_ms,
      metrics,
      histograms,
      tokens: {
        estimated_requests: this.estimatedRequests,
        mismatched_requests: this.mismatchedRequests,
        max_mismatch: this.maxMismatch,
      },
      tiers_used: { ...this.tiersUsed },
      ...breakdownFields(this.breakdowns),
      ...checkFields(this.checks),
      ...(this.dialects === null ? {} : dialectFields(this.dialects)),
    };
  }
}

/** `breakdowns` and `breakdowns_overflow`, only when some request had labels (summaries stay as they were otherwise). */
function breakdownFields(breakdowns: BreakdownAccumulator): Pick<GroupSummary, 'breakdowns' | 'breakdowns_overflow'> {
  const summary = breakdowns.summary();
  if (summary === undefined) return {};
  const overflow = breakdowns.overflow();
  return overflow === undefined ? { breakdowns: summary } : { breakdowns: summary, breakdowns_overflow: overflow };
}

/** `dialects`, only when some ok request carried generated text. */
function dialectFields(facts: DialectFacts): Pick<GroupSummary, 'dialects'> {
  const dialects = groupDialects(facts);
  return dialects === undefined ? {} : { dialects };
}

/** `checks`, only when some request was checked. */
function checkFields(checks: CheckAccumulator): Pick<GroupSummary, 'checks'> {
  const summary = checks.summary();
  return summary === undefined ? {} : { checks: summary };
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
