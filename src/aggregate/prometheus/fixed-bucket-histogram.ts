/**
 * One Prometheus histogram series of the live exporter: a count per fixed bucket, a sum and a count. Fed
 * in microseconds (the unit of RecordedValues) with no allocation and no string work, so observing every
 * ITL gap of every request stays cheap; read at scrape time as cumulative `_bucket` values in seconds.
 */

export class FixedBucketHistogram {
  /** Upper bounds in whole microseconds, ascending (`le` is inclusive, as Prometheus defines it). */
  readonly #boundsUs: Float64Array;
  /** counts[i]: observations in (bound[i-1], bound[i]]; the last slot: above the largest bound (+Inf). */
  readonly #counts: Float64Array;
  #sumUs = 0;
  #count = 0;

  constructor(boundsS: readonly number[]) {
    this.#boundsUs = Float64Array.from(boundsS, (bound) => Math.round(bound * 1_000_000));
    this.#counts = new Float64Array(boundsS.length + 1);
  }

  /** Adds one value in µs; NaN (not reached) is skipped, a negative value counts as 0. */
  observeUs(valueUs: number): void {
    if (Number.isNaN(valueUs)) return;
    const us = valueUs > 0 ? valueUs : 0;
    const bounds = this.#boundsUs;
    let low = 0;
    let high = bounds.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((bounds[mid] as number) < us) low = mid + 1;
      else high = mid;
    }
    this.#counts[low] = (this.#counts[low] as number) + 1;
    this.#sumUs += us;
    this.#count++;
  }

  get count(): number {
    return this.#count;
  }

  get sumSeconds(): number {
    return this.#sumUs / 1_000_000;
  }

  /** Cumulative counts per bucket (Prometheus' `_bucket` values), the last one the +Inf bucket (= count). */
  cumulativeCounts(): number[] {
    const cumulative: number[] = [];
    let total = 0;
    for (const count of this.#counts) {
      total += count;
      cumulative.push(total);
    }
    return cumulative;
  }
}
