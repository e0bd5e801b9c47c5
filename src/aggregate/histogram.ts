/**
 * HDR histograms of a run: how they are built (integer microseconds for *_ms metrics, the raw integer
 * for token counts, tokens/s x 1000 for decode_tps; 3 significant digits; auto-resizing), encoded
 * (HdrHistogram compressed base64, "HISTFAAA...", decodable by any HdrHistogram library), decoded, and
 * summarised into MetricStats in the metric's unit.
 */
import type { Histogram } from 'hdr-histogram-js';
import { metricDefinition, type MetricName } from '../metrics/metric-registry.js';
import type { MetricStats } from '../metrics/run-summary.js';
import { hdr } from './hdr-library.js';

export type { Histogram } from 'hdr-histogram-js';

/** One hour in microseconds: the initial range; histograms resize beyond it rather than fail. */
export const HISTOGRAM_HIGHEST_US = 3_600_000_000;

/** A new empty histogram with the run's settings. */
export function createHistogram(): Histogram {
  return hdr().build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HISTOGRAM_HIGHEST_US,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
  });
}

/**
 * A new empty histogram with the run's settings whose counts are stored packed (hdr-histogram-js
 * `bitBucketSize: 'packed'`): a few KB for a sparse histogram where the plain one takes ~95 KB whatever it
 * holds, but slower to record into and much slower to read (unpackHistogram). For the many small
 * histograms of breakdown cells (breakdown-accumulator.ts), never for a group's hot-path histograms. It
 * holds the same buckets as the plain one: it encodes and reads exactly the same
 * (test/unit/aggregate/breakdown-accumulator.test.ts).
 */
export function createPackedHistogram(): Histogram {
  return hdr().build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HISTOGRAM_HIGHEST_US,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
    bitBucketSize: 'packed',
  });
}

/**
 * A plain copy of a packed histogram, to encode and read once: every read of a packed histogram walks its
 * packed counts index by index (an encode, each percentile, the mean), so one copy over the indexes that
 * can hold counts, then plain reads, cost a fraction of reading the packed one. Holds the same counts in
 * the same buckets, so it encodes and reads exactly as the packed one.
 */
export function unpackHistogram(packed: Histogram): Histogram {
  const plain = createHistogram();
  if (packed.totalCount === 0) return plain;
  if (!(packed instanceof hdr().JsHistogram)) {
    plain.add(packed);
    return plain;
  }
  // Only the indexes that can hold counts: 0 (the value 0), then the smallest to the largest value recorded
  // (Histogram.add walks every index: ~23,500 for the hour-wide range). Each count goes to the same bucket.
  const zeros = packed.getCountAtIndex(0);
  if (zeros > 0) plain.recordValueWithCount(0, zeros);
  const last = packed.countsArrayIndex(packed.maxValue);
  for (let i = Math.max(1, packed.countsArrayIndex(packed.minNonZeroValue)); i <= last; i += 1) {
    const count = packed.getCountAtIndex(i);
    if (count > 0) plain.recordValueWithCount(packed.valueFromIndex(i), count);
  }
  return plain;
}

/** Recorded value per unit of the reported value (metric-registry.ts: 1000 for *_ms and decode_tps, 1 for tokens). */
export function metricScale(metric: MetricName): number {
  return metricDefinition(metric)?.scale ?? 1;
}

export function encodeHistogram(histogram: Histogram): string {
  return hdr().encodeIntoCompressedBase64(histogram);
}

/** Decodes a histogram of summary.json (auto-resizing, so it can take merges of any range). */
export function decodeHistogram(base64: string): Histogram {
  const histogram = hdr().decodeFromCompressedBase64(base64);
  histogram.autoResize = true;
  return histogram;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * count, mean, min, max and percentiles of a histogram divided by `scale` (1000: µs -> ms). Percentiles
 * are HdrHistogram's (the highest value equivalent to the bucket holding that rank), so any library
 * reading the encoded histogram gets the same numbers.
 */
export function metricStatsFromHistogram(histogram: Histogram, scale: number): MetricStats {
  const count = histogram.totalCount;
  if (count === 0) return { count: 0, mean: 0, min: 0, max: 0, p1: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0 };
  return {
    count,
    mean: round3(histogram.mean / scale),
    min: round3(histogram.getValueAtPercentile(0) / scale),
    // Not maxValue: a live histogram knows the exact max, a decoded one only its bucket; stay consistent.
    max: round3(histogram.getValueAtPercentile(100) / scale),
    p1: round3(histogram.getValueAtPercentile(1) / scale),
    p50: round3(histogram.getValueAtPercentile(50) / scale),
    p90: round3(histogram.getValueAtPercentile(90) / scale),
    p95: round3(histogram.getValueAtPercentile(95) / scale),
    p99: round3(histogram.getValueAtPercentile(99) / scale),
    p999: round3(histogram.getValueAtPercentile(99.9) / scale),
  };
}
