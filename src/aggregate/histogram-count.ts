/**
 * How many values of an HDR histogram lie above a limit, at the histogram's resolution (a value counts
 * as above when its bucket's highest equivalent value is). hdr-histogram-js offers no count-between
 * query, so this searches the rank whose value crosses the limit through getValueAtPercentile (monotone in
 * the rank): O(log n) lookups. Anything that decides from stored histograms (capacity --reevaluate) and
 * anything that decides live uses this one count, so both decide the same.
 */
import type { Histogram } from 'hdr-histogram-js';

/** Values recorded above `limit` (recorded units). */
export function countAbove(histogram: Histogram, limit: number): number {
  const total = histogram.totalCount;
  if (total === 0) return 0;
  const valueAtRank = (rank: number): number => histogram.getValueAtPercentile((100 * rank) / total);
  if (valueAtRank(total) <= limit) return 0;
  if (valueAtRank(1) > limit) return total;
  // Invariant: rank `low` is at or below the limit, rank `high` above it.
  let low = 1;
  let high = total;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (valueAtRank(middle) <= limit) low = middle;
    else high = middle;
  }
  return total - low;
}
