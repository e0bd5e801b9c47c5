/**
 * The soak benchmark's verdict and curve. After the warmup (counted from the run's first request) and up
 * to its end, the samples are cut into thirds by time; a series is flat when the median of its last third
 * is at most 10% above the median of its first third (for event-loop delay, 10% or 1 ms, whichever is
 * larger: a p99 of 2 ms moving by 0.3 ms is noise). Only growth fails: a drop is the machine getting
 * quieter or memory handed back, never a leak. Open file descriptors must also stay bounded: the last
 * third's highest count at most 10% above the first third's.
 * The curve is one row per bucket (a minute on long runs): medians of memory, the lowest heap (what the
 * last collection left: the floor a leak would raise), the highest fd count and event-loop delay p99.
 */
import type { BenchRow } from './benchmark.js';
import type { SoakSample } from './soak-sampler.js';

/** The brief's bound: flat within 10% after the warmup. */
export const FLAT_TOLERANCE = 0.1;
/** Event-loop delay: differences below this are noise on a shared machine, whatever the percentage. */
const ELD_FLOOR_MS = 1;

type Series = 'rss_mb' | 'heap_used_mb' | 'fds' | 'eld_p99_ms';
const SERIES: readonly Series[] = ['rss_mb', 'heap_used_mb', 'fds', 'eld_p99_ms'];

export interface SeriesVerdict {
  readonly series: Series;
  readonly first_third_median: number;
  readonly last_third_median: number;
  /** last / first - 1. */
  readonly change: number;
  readonly first_third_max: number;
  readonly last_third_max: number;
  readonly flat: boolean;
}

export interface SoakVerdict {
  /** The run's load, in seconds since sampling started. */
  readonly run_window_s: { readonly start: number; readonly end: number };
  /** From the run's start. */
  readonly warmup_s: number;
  /** Samples after the warmup, in each third. */
  readonly samples_per_third: number;
  readonly series: readonly SeriesVerdict[];
  readonly flat: boolean;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function valuesOf(samples: readonly SoakSample[], series: Series): number[] {
  return samples.map((s) => s[series]).filter((v): v is number => v !== null);
}

function seriesVerdict(first: readonly SoakSample[], last: readonly SoakSample[], series: Series): SeriesVerdict {
  const a = valuesOf(first, series);
  const b = valuesOf(last, series);
  const firstMedian = median(a);
  const lastMedian = median(b);
  const firstMax = a.length > 0 ? Math.max(...a) : Number.NaN;
  const lastMax = b.length > 0 ? Math.max(...b) : Number.NaN;
  const allowed =
    series === 'eld_p99_ms' ? Math.max(ELD_FLOOR_MS, firstMedian * FLAT_TOLERANCE) : firstMedian * FLAT_TOLERANCE;
  const medianFlat = lastMedian - firstMedian <= allowed;
  // fds: the pool's sockets follow the momentary number in flight, so the count wanders by a few; a leak
  // climbs. Bounded: the last third's highest at most 10% above the first third's.
  const flat =
    series === 'fds'
      ? a.length === 0 || (medianFlat && lastMax <= Math.ceil(firstMax * (1 + FLAT_TOLERANCE)))
      : medianFlat;
  return {
    series,
    first_third_median: round3(firstMedian),
    last_third_median: round3(lastMedian),
    change: round3(lastMedian / firstMedian - 1),
    first_third_max: firstMax,
    last_third_max: lastMax,
    flat,
  };
}

/** When the run sent load, in the samples' seconds (the CLI's set-up before and its reports after are left out). */
export interface RunWindow {
  readonly startS: number;
  readonly endS: number;
}

/** The verdict over the samples taken inside the run, `warmupS` seconds after it started. */
export function soakVerdict(samples: readonly SoakSample[], run: RunWindow, warmupS: number): SoakVerdict {
  const measured = samples.filter((s) => s.t_s >= run.startS + warmupS && s.t_s <= run.endS);
  if (measured.length < 3)
    throw new Error(`the soak took ${measured.length} samples after its warmup: too few to judge`);
  const third = Math.floor(measured.length / 3);
  const first = measured.slice(0, third);
  const last = measured.slice(measured.length - third);
  const series = SERIES.map((name) => seriesVerdict(first, last, name));
  return {
    run_window_s: { start: round3(run.startS), end: round3(run.endS) },
    warmup_s: warmupS,
    samples_per_third: third,
    series,
    flat: series.every((s) => s.flat),
  };
}

/** The verdict as table rows, one per series. */
export function verdictRows(verdict: SoakVerdict): BenchRow[] {
  return verdict.series.map((s) => ({
    series: s.series,
    'first third (median)': s.first_third_median,
    'last third (median)': s.last_third_median,
    change: `${(s.change * 100).toFixed(1)}%`,
    'max first/last': `${s.first_third_max}/${s.last_third_max}`,
    flat: s.flat ? 'yes' : 'NO',
  }));
}

/** The curve, one row per `bucketS` seconds of samples. */
export function curveRows(samples: readonly SoakSample[], bucketS: number): BenchRow[] {
  const buckets = new Map<number, SoakSample[]>();
  for (const sample of samples) {
    const index = Math.floor(sample.t_s / bucketS);
    const bucket = buckets.get(index) ?? [];
    bucket.push(sample);
    buckets.set(index, bucket);
  }
  return [...buckets.entries()].map(([index, bucket]) => {
    const fds = valuesOf(bucket, 'fds');
    return {
      from_s: index * bucketS,
      rss_mb: round1(median(valuesOf(bucket, 'rss_mb'))),
      heap_used_mb: round1(median(valuesOf(bucket, 'heap_used_mb'))),
      heap_min_mb: round1(Math.min(...valuesOf(bucket, 'heap_used_mb'))),
      fds_max: fds.length > 0 ? Math.max(...fds) : '-',
      eld_p99_ms_max: round1(Math.max(...valuesOf(bucket, 'eld_p99_ms'))),
      samples: bucket.length,
    };
  });
}

/** One decimal, as text (the table prints numbers with three). */
function round1(value: number): string {
  return value.toFixed(1);
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
