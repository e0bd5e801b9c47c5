/**
 * The run collector: the one owner of a run's numbers (STYLE 2). The runner reports starts, drops and
 * finished records with their values; each is recorded into its group's histograms, counters and time
 * series, and dropped. Warmup records count in nothing. `completed` allocates nothing beyond what the
 * histograms record. The last seconds the progress line reads are progress-window.ts (the run's, and the
 * first groups' for the dashboard). The live views (/metrics, the dashboard) count nothing themselves: they
 * read these numbers in place through live().
 *
 * Values arrive with the record (`completed(record, values)`), derived once per request before it gets
 * here (measure/request-values.ts, from token counts made in slices between I/O by
 * runner/record-finisher.ts); the same values go to requests.csv (STYLE 13).
 */
import type { RequestRecord } from '../client/request-record.js';
import { createSloEvaluator, type SloEvaluator } from '../measure/slo.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { TimeSeriesPoint } from '../metrics/run-summary.js';
import { GroupAccumulator } from './group-accumulator.js';
import type { LiveGroup } from './live-thresholds.js';
import { ProgressWindow } from './progress-window.js';
import type { CollectorOptions, CollectorResult, ProgressSnapshot, RunCollector } from './types.js';

/** Creates the collector of one run (see the file's comment). */
export function createRunCollector(options: CollectorOptions): RunCollector {
  return new GroupedRunCollector(options);
}

/** The run's counters over all groups, each group's accumulator, and the progress window. */
class GroupedRunCollector implements RunCollector {
  readonly #runStartUs: number;
  readonly #groups: GroupAccumulator[];
  readonly #slo: SloEvaluator;
  /** Requests ended in the last seconds, for the progress line's rates and TTFT p50. */
  readonly #window = new ProgressWindow();
  #started = 0;
  #ended = 0;
  #failed = 0;
  #throttled = 0;
  #dropped = 0;

  constructor(options: CollectorOptions) {
    this.#runStartUs = options.runStartUs;
    this.#groups = options.groups.map(
      (group) =>
        new GroupAccumulator(group, options.groupWindows === true, options.withoutDialects?.has(group.index) !== true),
    );
    this.#slo = createSloEvaluator(options.slo);
  }

  started(groupIndex: number, atUs: number): void {
    const group = this.#groups[groupIndex];
    if (!group) return;
    // The row first: opening a new second closes the previous one with the in-flight count it ended with.
    const row = group.series.row(this.#secondOf(atUs), group.inFlight);
    this.#started++;
    group.started++;
    group.inFlight++;
    row.started++;
  }

  dropped(groupIndex: number, atUs: number): void {
    const group = this.#groups[groupIndex];
    if (!group) return;
    this.#dropped++;
    group.dropped++;
    if (atUs < group.firstLaunchUs) group.firstLaunchUs = atUs;
  }

  completed(record: RequestRecord, values: RecordedValues): void {
    if (record.warmup) return;
    const group = this.#groups[record.groupIndex];
    if (!group) return;
    const endUs = !Number.isNaN(record.endUs) ? record.endUs : record.launchUs;
    const second = this.#secondOf(endUs);
    const row = group.series.row(second, group.inFlight);
    if (group.inFlight > 0) group.inFlight--;
    this.#ended++;
    if (record.launchUs < group.firstLaunchUs) group.firstLaunchUs = record.launchUs;
    if (endUs > group.lastEndUs) group.lastEndUs = endUs;
    row.completed++;
    // Throttling a retry recovered from is throttling all the same: counted with the final 429s.
    const retriedThrottled = group.countAttempts(record);
    if (retriedThrottled > 0) {
      this.#throttled += retriedThrottled;
      row.throttled += retriedThrottled;
    }
    const slot = this.#window.slot(second);
    this.#window.countEnded(slot);
    const groupWindow = group.window;
    const groupSlot = groupWindow === null ? -1 : groupWindow.slot(second);
    if (groupWindow !== null) groupWindow.countEnded(groupSlot);
    // Every request that was sent (NaN, never sent, is skipped).
    group.record('schedule_lag_ms', values.schedule_lag_us);
    // Only requests that opened a connection have these (NaN is skipped); failed ones too: a slow or failed handshake is the point.
    group.record('connect_ms', values.connect_us);
    group.record('tls_handshake_ms', values.tls_handshake_us);
    if (record.errorClass === null) this.#countOk(group, row, record, values, second, slot, groupSlot);
    else this.#countFailure(group, row, record);
    group.breakdowns.add(record, values);
    group.checks.add(record);
    if (!Number.isNaN(record.rateLimitRemainingRequests)) {
      row.ratelimit_remaining_requests = record.rateLimitRemainingRequests;
    }
    if (!Number.isNaN(record.rateLimitRemainingTokens)) {
      row.ratelimit_remaining_tokens = record.rateLimitRemainingTokens;
    }
  }

  progress(nowUs: number): ProgressSnapshot {
    const elapsedUs = Math.max(0, nowUs - this.#runStartUs);
    const window = this.#window.read(this.#secondOf(nowUs));
    const windowS = (elapsedUs - window.fromSecond * 1_000_000) / 1_000_000;
    return {
      elapsedMs: elapsedUs / 1000,
      started: this.#started,
      completed: this.#ended,
      failed: this.#failed,
      throttled: this.#throttled,
      dropped: this.#dropped,
      inFlight: this.#groups.reduce((sum, g) => sum + g.inFlight, 0),
      requestsPerS: windowS > 0 ? window.ended / windowS : 0,
      outputTokensPerS: windowS > 0 ? window.outputTokens / windowS : 0,
      ttftP50Ms: window.ttftP50Ms,
    };
  }

  live(groupIndex: number): LiveGroup | undefined {
    return this.#groups[groupIndex];
  }

  finish(): CollectorResult {
    const timeSeries: TimeSeriesPoint[] = [];
    for (const group of this.#groups) timeSeries.push(...group.series.finish(group.inFlight));
    return { groups: this.#groups.map((group) => group.summary()), timeSeries };
  }

  /** Seconds since the run's start, whole (a time before it counts in second 0). */
  #secondOf(atUs: number): number {
    return Math.max(0, Math.floor((atUs - this.#runStartUs) / 1_000_000));
  }

  /** An ok request: its metrics and goodput, and its tokens and TTFT in the series and the window. */
  #countOk(
    group: GroupAccumulator,
    row: TimeSeriesPoint,
    record: RequestRecord,
    values: RecordedValues,
    second: number,
    slot: number,
    groupSlot: number,
  ): void {
    group.addOk(record, values, this.#slo.isGood(record, values));
    const groupWindow = group.window;
    const outputTokens = values.output_tokens;
    if (!Number.isNaN(outputTokens)) {
      row.output_tokens += outputTokens;
      this.#window.addOutputTokens(slot, outputTokens);
      groupWindow?.addOutputTokens(groupSlot, outputTokens);
    }
    const ttftUs = values.ttft_us;
    group.series.recordLatencies(second, ttftUs, values.e2e_us);
    if (ttftUs >= 0) {
      this.#window.recordTtftUs(slot, ttftUs);
      groupWindow?.recordTtftUs(groupSlot, ttftUs);
    }
  }

  /**
   * A failed request: by class, with 429s counted as throttling rather than failure. The one place a
   * request's outcome is decided: /metrics and the dashboard read these counts (live()).
   */
  #countFailure(group: GroupAccumulator, row: TimeSeriesPoint, record: RequestRecord): void {
    group.countError(record);
    if (record.errorClass === 'http_429') {
      this.#throttled++;
      group.throttled++;
      row.throttled++;
    } else {
      this.#failed++;
      group.failed++;
      row.failed++;
    }
  }
}
