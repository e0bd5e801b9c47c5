/**
 * The run collector: the one owner of a run's numbers (STYLE 2). The runner reports starts, drops and
 * finished records with their values; each is recorded into its group's histograms, counters and time
 * series, and dropped. Warmup records count in nothing. `completed` allocates nothing beyond what the
 * histograms record.
 *
 * Values arrive with the record (`completed(record, values)`), derived once per request before it gets
 * here (measure/request-values.ts, from token counts made in slices between I/O by
 * runner/record-finisher.ts); the same values go to requests.csv (STYLE 13).
 */
import type { RequestRecord } from '../client/request-record.js';
import { createSloEvaluator } from '../measure/slo.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { TimeSeriesPoint } from '../metrics/run-summary.js';
import type { Histogram } from './histogram.js';
import { GroupAccumulator } from './group-accumulator.js';
import { build } from 'hdr-histogram-js';
import type { CollectorOptions, CollectorResult, ProgressSnapshot, RunCollector } from './types.js';

/** Seconds the progress rates and TTFT p50 are taken over. */
const PROGRESS_WINDOW_S = 5;
const RING = 8;

export function createRunCollector(options: CollectorOptions): RunCollector {
  const runStartUs = options.runStartUs;
  const groups = options.groups.map((group) => new GroupAccumulator(group));
  const slo = createSloEvaluator(options.slo);
  // TTFT of the last seconds for the progress line: one small histogram per ring second, summed on demand.
  const smallHistogram = () =>
    build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 3_600_000_000,
      numberOfSignificantValueDigits: 2,
      autoResize: true,
    });
  const ringTtftUs = Array.from({ length: RING }, smallHistogram);
  const windowTtftUs = smallHistogram();
  // Progress rates: per-second buckets in a small ring, stamped with their second.
  const ringSecond = new Float64Array(RING).fill(-1);
  const ringEnded = new Float64Array(RING);
  const ringTokens = new Float64Array(RING);
  let started = 0;
  let ended = 0;
  let failed = 0;
  let throttled = 0;
  let dropped = 0;

  const secondOf = (atUs: number): number => Math.max(0, Math.floor((atUs - runStartUs) / 1_000_000));
  const totalInFlight = (): number => groups.reduce((sum, g) => sum + g.inFlight, 0);

  const ringSlot = (second: number): number => {
    const slot = second % RING;
    if (ringSecond[slot] !== second) {
      ringSecond[slot] = second;
      ringEnded[slot] = 0;
      ringTokens[slot] = 0;
      (ringTtftUs[slot] as Histogram).reset();
    }
    return slot;
  };

  return {
    started(groupIndex, atUs) {
      const group = groups[groupIndex];
      if (!group) return;
      // The row first: opening a new second closes the previous one with the in-flight count it ended with.
      const row = group.series.row(secondOf(atUs), group.inFlight);
      started++;
      group.started++;
      group.inFlight++;
      row.started++;
    },

    dropped(groupIndex, atUs) {
      const group = groups[groupIndex];
      if (!group) return;
      dropped++;
      group.dropped++;
      if (atUs < group.firstLaunchUs) group.firstLaunchUs = atUs;
    },

    completed(record, values) {
      if (record.warmup) return;
      const group = groups[record.groupIndex];
      if (!group) return;
      const endUs = record.endUs === record.endUs ? record.endUs : record.launchUs;
      const second = secondOf(endUs);
      const row = group.series.row(second, group.inFlight);
      if (group.inFlight > 0) group.inFlight--;
      ended++;
      if (record.launchUs < group.firstLaunchUs) group.firstLaunchUs = record.launchUs;
      if (endUs > group.lastEndUs) group.lastEndUs = endUs;
      row.completed++;
      // Throttling a retry recovered from is throttling all the same: counted with the final 429s.
      const retriedThrottled = group.countAttempts(record);
      if (retriedThrottled > 0) {
        throttled += retriedThrottled;
        row.throttled += retriedThrottled;
      }
      const slot = ringSlot(second);
      ringEnded[slot] = (ringEnded[slot] as number) + 1;
      // Every request that was sent (NaN, never sent, is skipped).
      group.record('schedule_lag_ms', values.schedule_lag_ms);
      // Only requests that opened a connection have these (NaN is skipped); failed ones too: a slow or failed handshake is the point.
      group.record('connect_ms', values.connect_ms);
      group.record('tls_handshake_ms', values.tls_handshake_ms);
      if (record.errorClass === null) {
        group.addOk(record, values, slo.isGood(record, values));
        const outputTokens = values.output_tokens;
        if (outputTokens === outputTokens) {
          row.output_tokens += outputTokens;
          ringTokens[slot] = (ringTokens[slot] as number) + outputTokens;
        }
        const ttftUs = values.ttft_ms;
        group.series.recordLatencies(second, ttftUs, values.e2e_ms);
        if (ttftUs >= 0) (ringTtftUs[slot] as Histogram).recordValue(Math.round(ttftUs));
      } else {
        group.countError(record);
        if (record.errorClass === 'http_429') {
          throttled++;
          group.throttled++;
          row.throttled++;
        } else {
          failed++;
          group.failed++;
          row.failed++;
        }
      }
      if (record.rateLimitRemainingRequests === record.rateLimitRemainingRequests) {
        row.ratelimit_remaining_requests = record.rateLimitRemainingRequests;
      }
      if (record.rateLimitRemainingTokens === record.rateLimitRemainingTokens) {
        row.ratelimit_remaining_tokens = record.rateLimitRemainingTokens;
      }
    },

    progress(nowUs): ProgressSnapshot {
      const elapsedUs = Math.max(0, nowUs - runStartUs);
      const current = secondOf(nowUs);
      const from = Math.max(0, current - (PROGRESS_WINDOW_S - 1));
      let windowEnded = 0;
      let windowTokens = 0;
      windowTtftUs.reset();
      for (let s = from; s <= current; s++) {
        const slot = s % RING;
        if (ringSecond[slot] === s) {
          windowEnded += ringEnded[slot] as number;
          windowTokens += ringTokens[slot] as number;
          windowTtftUs.add(ringTtftUs[slot] as Histogram);
        }
      }
      const windowS = (elapsedUs - from * 1_000_000) / 1_000_000;
      return {
        elapsedMs: elapsedUs / 1000,
        started,
        completed: ended,
        failed,
        throttled,
        dropped,
        inFlight: totalInFlight(),
        requestsPerS: windowS > 0 ? windowEnded / windowS : 0,
        outputTokensPerS: windowS > 0 ? windowTokens / windowS : 0,
        ttftP50Ms: windowTtftUs.totalCount > 0 ? windowTtftUs.getValueAtPercentile(50) / 1000 : null,
      };
    },

    finish(): CollectorResult {
      const timeSeries: TimeSeriesPoint[] = [];
      for (const group of groups) timeSeries.push(...group.series.finish(group.inFlight));
      return { groups: groups.map((group) => group.summary()), timeSeries };
    },
  };
}
