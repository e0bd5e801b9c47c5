/**
 * Decodes the HdrHistograms of summary.json (compressed base64) into what charts and statistics need:
 * HdrHistogram-style percentile distributions, CDF step points, and (value, count) buckets. All decoding
 * happens here in Node when a report is built, so the browser never decodes a histogram.
 */
import type { JsHistogram } from 'hdr-histogram-js';
import { decodeHistogram as decodeSummaryHistogram } from '../../aggregate/histogram.js';
import { metricDefinition, type MetricName } from '../../metrics/metric-registry.js';

/** One recorded bucket: its value in the metric's report unit and how many samples fell into it. */
export interface WeightedValue {
  readonly value: number;
  readonly count: number;
}

/** A decoded histogram in the metric's report unit (ms for *_ms, tokens/s for decode_tps). */
export interface DecodedHistogram {
  readonly totalCount: number;
  /** Value at a percentile in [0, 100]. */
  valueAtPercentile(percentile: number): number;
  /** Recorded buckets in ascending value order. */
  readonly buckets: readonly WeightedValue[];
}

/** Divisor from the histogram's integer unit to the report unit (DESIGN.md: µs inside, ms outside): the registry's scale. */
export function histogramScale(metric: MetricName | string): number {
  return metricDefinition(metric)?.scale ?? 1;
}

/** Decodes one compressed histogram; null when absent, empty or unreadable (a report never fails on one bad field). */
export function decodeHistogram(encoded: string | undefined, metric: MetricName | string): DecodedHistogram | null {
  if (!encoded) return null;
  let histogram: JsHistogram;
  try {
    histogram = decodeSummaryHistogram(encoded) as unknown as JsHistogram;
  } catch {
    return null;
  }
  const totalCount = histogram.totalCount;
  if (totalCount === 0) return null;
  const scale = histogramScale(metric);
  const buckets: WeightedValue[] = [];
  const iterator = histogram.recordedValuesIterator;
  iterator.reset();
  while (iterator.hasNext()) {
    const step = iterator.next();
    buckets.push({ value: step.valueIteratedTo / scale, count: step.countAtValueIteratedTo });
  }
  return {
    totalCount,
    valueAtPercentile: (percentile) => histogram.getValueAtPercentile(percentile) / scale,
    buckets,
  };
}

/**
 * The x grid of percentile-distribution plots: 1/(1-p) from 1 (p = 0) to 10^5 (p = 99.999%), log-spaced.
 * Every series of a plot shares it, so groups and runs overlay on one chart.
 */
export function percentileGrid(pointsPerDecade = 24, decades = 5): number[] {
  const grid: number[] = [];
  for (let i = 0; i <= pointsPerDecade * decades; i++) grid.push(10 ** (i / pointsPerDecade));
  return grid;
}

/** The percentile (0..100) that a grid point 1/(1-p) stands for. */
export function percentileOfGridPoint(x: number): number {
  return 100 * (1 - 1 / x);
}

/**
 * Values of a histogram on the percentile grid, in the report unit. Points beyond what the sample can
 * resolve (1/(1-p) above the sample count) are null, as in HdrHistogram's own plots, except that the
 * first such point carries the maximum so the curve ends at the max.
 */
export function percentileSeries(histogram: DecodedHistogram, grid: readonly number[]): (number | null)[] {
  const limit = Math.max(histogram.totalCount, 10);
  let maxPlaced = false;
  return grid.map((x) => {
    if (x <= limit) return round3(histogram.valueAtPercentile(percentileOfGridPoint(x)));
    if (maxPlaced) return null;
    maxPlaced = true;
    return round3(histogram.valueAtPercentile(100));
  });
}

/** Cumulative fraction (0..1) of samples at or below each x, for CDF plots whose series share one x axis. */
export function cdfSeries(histogram: DecodedHistogram, xs: readonly number[]): (number | null)[] {
  const out: (number | null)[] = [];
  let bucket = 0;
  let cumulative = 0;
  const total = histogram.totalCount;
  const max = histogram.buckets[histogram.buckets.length - 1]?.value ?? 0;
  for (const x of xs) {
    while (bucket < histogram.buckets.length && (histogram.buckets[bucket] as WeightedValue).value <= x) {
      cumulative += (histogram.buckets[bucket] as WeightedValue).count;
      bucket++;
    }
    // Past the max the curve has ended; leave it out rather than draw a flat line to other groups' max.
    out.push(
      x > max && cumulative === total && out.length > 0 && out[out.length - 1] === 1
        ? null
        : round4(cumulative / total),
    );
  }
  return out;
}

/** The x values of a CDF plot: the bucket values of every histogram drawn on it, sorted, deduplicated, thinned. */
export function cdfGrid(histograms: readonly DecodedHistogram[], maxPoints = 400): number[] {
  const values = new Set<number>();
  for (const histogram of histograms) for (const bucket of histogram.buckets) values.add(bucket.value);
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length <= maxPoints) return sorted;
  const step = sorted.length / maxPoints;
  const thinned: number[] = [];
  for (let i = 0; i < maxPoints; i++) thinned.push(sorted[Math.floor(i * step)] as number);
  thinned.push(sorted[sorted.length - 1] as number);
  return [...new Set(thinned)];
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function round4(value: number): number {
  return Math.round(value * 10000) / 10000;
}
