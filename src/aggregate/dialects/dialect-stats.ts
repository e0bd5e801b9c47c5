/**
 * The two ways the dialects' tools summarise a list of values. numpy's default `np.percentile` (linear
 * interpolation between the closest ranks) with `np.mean`: vLLM, AIPerf, and llmperf (pandas'
 * `Series.quantile` defaults to the same interpolation). GuideLLM's `DistributionSummary.from_values`:
 * each value has a weight; the percentile p is the first value (sorted) whose cumulative probability
 * (numpy's sequential cumsum of weight / total weight) reaches p, and the mean is weighted.
 */
import type { DialectRow, DialectStats, DialectSummary } from '../../metrics/dialect-summary.js';
import type { DialectFacts } from './request-facts.js';

const PERCENTILES = [50, 90, 95, 99] as const;

/** numpy's `np.percentile(values, p)` (method "linear") of ascending `sorted`; NaN when empty. */
export function linearPercentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const rank = (p / 100) * (n - 1);
  const below = Math.floor(rank);
  const above = Math.min(below + 1, n - 1);
  const fraction = rank - below;
  const low = sorted[below] as number;
  const high = sorted[above] as number;
  return low + (high - low) * fraction;
}

/** Stats of `values` (divided by `scale` for the unit reported) the numpy way, under the tool's `name`; undefined when empty. */
export function numpyStats(name: string, values: readonly number[], scale = 1): DialectStats | undefined {
  return sortedStats(name, Float64Array.from(values).sort(), scale);
}

/** numpyStats of values already in ascending order (the pooled chunk gaps, sorted once). */
export function sortedStats(name: string, sorted: ArrayLike<number>, scale = 1): DialectStats | undefined {
  const n = sorted.length;
  if (n === 0) return undefined;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i] as number;
  const [p50, p90, p95, p99] = PERCENTILES.map((p) => round3(linearPercentile(sorted, p) / scale)) as [
    number,
    number,
    number,
    number,
  ];
  return { name, count: n, mean: round3(sum / n / scale), p50, p90, p95, p99 };
}

/**
 * GuideLLM's weighted summary of (value, weight) pairs (values already in the unit reported): equal values
 * merged, zero weights dropped, percentiles by searchsorted(side="left") on the cumulative probabilities.
 */
export function weightedStats(name: string, pairs: readonly (readonly [number, number])[]): DialectStats | undefined {
  const byValue = new Map<number, number>();
  for (const [value, weight] of pairs) byValue.set(value, (byValue.get(value) ?? 0) + weight);
  const entries = [...byValue].filter(([, weight]) => weight > 0).sort((a, b) => a[0] - b[0]);
  if (entries.length === 0) return undefined;
  let total = 0;
  for (const [, weight] of entries) total += weight;
  const cdf: number[] = [];
  let cumulative = 0;
  let mean = 0;
  for (const [value, weight] of entries) {
    const probability = weight / total;
    cumulative += probability;
    cdf.push(cumulative);
    mean += value * probability;
  }
  const at = (p: number): number => {
    let i = 0;
    while (i < cdf.length - 1 && (cdf[i] as number) < p) i++;
    return (entries[i] as [number, number])[0];
  };
  return {
    name,
    count: total,
    mean: round3(mean),
    p50: round3(at(0.5)),
    p90: round3(at(0.9)),
    p95: round3(at(0.95)),
    p99: round3(at(0.99)),
  };
}

/** Rounded to 3 decimals (a microsecond, for milliseconds). */
export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** n / seconds, rounded; 0 for an empty window. */
export function perSecond(n: number, seconds: number): number {
  return seconds > 0 ? round3(n / seconds) : 0;
}

/**
 * A dialect's header: its tool and source, the requests and output tokens it counted over `durationS` (every
 * request, sampled or not), and their rates over it (every tool divides totals by its benchmark's
 * duration, each measuring that its way); and, when the facts were sampled, the size of the sample.
 */
export function dialectTotals(
  tool: string,
  source: string,
  facts: DialectFacts,
  durationS: number,
): Omit<DialectSummary, 'metrics'> {
  const sample = facts.sample;
  return {
    tool,
    source,
    requests: facts.count,
    output_tokens: facts.outputTokens,
    duration_s: durationS,
    requests_per_s: perSecond(facts.count, durationS),
    output_tokens_per_s: perSecond(facts.outputTokens, durationS),
    ...(sample === undefined ? {} : { sampled: true, sampled_requests: sample.requests, sampled_gaps: sample.gaps }),
  };
}

/** The rows that have values, in the order given. */
export function metricRows(
  rows: readonly (readonly [DialectRow, DialectStats | undefined])[],
): DialectSummary['metrics'] {
  const metrics: DialectSummary['metrics'] = {};
  for (const [row, stats] of rows) if (stats !== undefined) metrics[row] = stats;
  return metrics;
}

/** First latency start to last end of the requests kept, seconds: the benchmark's duration as vLLM, GuideLLM and llmperf time it. */
export function windowS(facts: DialectFacts): number {
  return facts.count > 0 ? (facts.lastEndUs - facts.firstStartUs) / 1e6 : 0;
}

/** The value at 0-based rank `k` of the union of ascending `a` and `b`, without merging them. */
export function rankOfTwo(a: ArrayLike<number>, b: ArrayLike<number>, k: number): number {
  let lo = Math.max(0, k + 1 - b.length);
  let hi = Math.min(a.length, k + 1);
  // The fewest elements of a among the first k + 1 such that the next one of a is not below the last of b taken.
  while (lo < hi) {
    const i = (lo + hi) >> 1;
    if ((a[i] as number) < (b[k - i] as number)) lo = i + 1;
    else hi = i;
  }
  const fromB = k + 1 - lo;
  return Math.max(lo > 0 ? (a[lo - 1] as number) : -Infinity, fromB > 0 ? (b[fromB - 1] as number) : -Infinity);
}

/**
 * numpyStats of the union of two ascending arrays (vLLM's pooled ITL: the text-chunk gaps and the role and
 * finish gaps), read in place: millions of gaps are not copied into one more array.
 */
export function pooledStats(
  name: string,
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  scale = 1,
): DialectStats | undefined {
  const n = a.length + b.length;
  if (n === 0) return undefined;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] as number;
  for (let i = 0; i < b.length; i++) sum += b[i] as number;
  const at = (p: number): number => {
    const rank = (p / 100) * (n - 1);
    const below = Math.floor(rank);
    const low = rankOfTwo(a, b, below);
    const high = rankOfTwo(a, b, Math.min(below + 1, n - 1));
    return round3((low + (high - low) * (rank - below)) / scale);
  };
  return { name, count: n, mean: round3(sum / n / scale), p50: at(50), p90: at(90), p95: at(95), p99: at(99) };
}
