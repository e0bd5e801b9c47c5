/**
 * The per-second time series of one group: started, completed, failed, throttled (429 answers), output tokens,
 * requests in flight, TTFT p50/p99 and e2e p50 of the requests that ended in that second, and the last
 * rate-limit headroom the server reported in it. Rows are contiguous from the group's first event to its
 * last. Memory is bounded: one row per second plus two small histograms reset at each new second.
 */
import type { Histogram } from 'hdr-histogram-js';
import type { TimeSeriesPoint } from '../metrics/run-summary.js';
import { hdr } from './hdr-library.js';

function createSecondHistogram(): Histogram {
  // Two significant digits are plenty for a per-second chart and keep the per-second reset cheap.
  return hdr().build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 2,
    autoResize: true,
  });
}

export class GroupTimeSeries {
  readonly #key: string;
  readonly #rows: TimeSeriesPoint[] = [];
  #firstSecond = -1;
  #currentSecond = -1;
  readonly #ttftUs = createSecondHistogram();
  readonly #e2eUs = createSecondHistogram();

  constructor(groupKey: string) {
    this.#key = groupKey;
  }

  /**
   * The row of `second`, opening new rows (and closing the current one) when time moved on. Events of a
   * second already closed still add to its counts; only its percentiles are final.
   */
  row(second: number, inFlight: number): TimeSeriesPoint {
    if (this.#firstSecond < 0) {
      this.#firstSecond = second;
      this.#currentSecond = second;
      this.#rows.push(this.#newRow(second, inFlight));
    }
    if (second > this.#currentSecond) {
      this.#close(inFlight);
      for (let s = this.#currentSecond + 1; s <= second; s++) this.#rows.push(this.#newRow(s, inFlight));
      this.#currentSecond = second;
    }
    const index = Math.max(0, second - this.#firstSecond);
    return this.#rows[index] as TimeSeriesPoint;
  }

  /** Adds a finished ok request's latencies to the current second (ignored for an already closed second). */
  recordLatencies(second: number, ttftUs: number, e2eUs: number): void {
    if (second !== this.#currentSecond) return;
    if (ttftUs >= 0) this.#ttftUs.recordValue(ttftUs);
    if (e2eUs >= 0) this.#e2eUs.recordValue(e2eUs);
  }

  /** Closes the current second; the rows so far. */
  finish(inFlight: number): TimeSeriesPoint[] {
    if (this.#firstSecond >= 0) this.#close(inFlight);
    return this.#rows;
  }

  #close(inFlight: number): void {
    const row = this.#rows[this.#currentSecond - this.#firstSecond];
    if (!row) return;
    row.in_flight = inFlight;
    if (this.#ttftUs.totalCount > 0) {
      row.ttft_p50_ms = this.#ttftUs.getValueAtPercentile(50) / 1000;
      row.ttft_p99_ms = this.#ttftUs.getValueAtPercentile(99) / 1000;
      this.#ttftUs.reset();
    }
    if (this.#e2eUs.totalCount > 0) {
      row.e2e_p50_ms = this.#e2eUs.getValueAtPercentile(50) / 1000;
      this.#e2eUs.reset();
    }
  }

  #newRow(second: number, inFlight: number): TimeSeriesPoint {
    return {
      group: this.#key,
      second,
      started: 0,
      completed: 0,
      failed: 0,
      throttled: 0,
      output_tokens: 0,
      in_flight: inFlight,
      ttft_p50_ms: null,
      ttft_p99_ms: null,
      e2e_p50_ms: null,
      ratelimit_remaining_requests: null,
      ratelimit_remaining_tokens: null,
    };
  }
}
