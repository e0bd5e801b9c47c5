/**
 * Exact merge of two groups' breakdowns (shards of one run): per (label, value) counts and token sums add,
 * the ttft_ms and e2e_ms histograms add, and the stats are recomputed from the merged histograms. The
 * bound on values per label holds for the union too: when the union has more values than the bound, the
 * first MAX_VALUES_PER_LABEL in natural order (compareValues) are kept and the rest fold into `other`.
 * That rule depends on the set of values only, never on which side they came from, so merging shards in
 * any order (and any grouping) gives the same breakdowns.
 */
import {
  type BreakdownStats,
  type GroupBreakdowns,
  MAX_VALUES_PER_LABEL,
  OVERFLOW_VALUE,
} from '../metrics/breakdown-summary.js';
import { breakdownStats, compareValues } from './breakdown-accumulator.js';
import { createHistogram, decodeHistogram, type Histogram } from './histogram.js';

/** The merged breakdowns and overflow of two groups; each undefined when neither had any. */
export function mergeBreakdowns(
  a: { breakdowns?: GroupBreakdowns; breakdowns_overflow?: Record<string, number> },
  b: { breakdowns?: GroupBreakdowns; breakdowns_overflow?: Record<string, number> },
): { breakdowns?: GroupBreakdowns; breakdowns_overflow?: Record<string, number> } {
  if (a.breakdowns === undefined && b.breakdowns === undefined) return {};
  const overflow: Record<string, number> = { ...a.breakdowns_overflow };
  for (const [label, n] of Object.entries(b.breakdowns_overflow ?? {})) overflow[label] = (overflow[label] ?? 0) + n;
  const out: GroupBreakdowns = {};
  const labels = new Set([...Object.keys(a.breakdowns ?? {}), ...Object.keys(b.breakdowns ?? {})]);
  for (const label of [...labels].sort()) {
    const sides = [a.breakdowns?.[label] ?? {}, b.breakdowns?.[label] ?? {}];
    const values = [...new Set(sides.flatMap((side) => Object.keys(side)))].sort(compareValues);
    // compareValues puts `other` last, so the values kept are the first MAX_VALUES_PER_LABEL of the rest.
    const kept = new Set(values.filter((value) => value !== OVERFLOW_VALUE).slice(0, MAX_VALUES_PER_LABEL));
    const cells = new Map<string, BreakdownStats[]>();
    for (const side of sides) {
      for (const [value, stats] of Object.entries(side)) {
        const target = kept.has(value) ? value : OVERFLOW_VALUE;
        if (target !== value) overflow[label] = (overflow[label] ?? 0) + stats.requests;
        const list = cells.get(target) ?? [];
        list.push(stats);
        cells.set(target, list);
      }
    }
    out[label] = Object.fromEntries(
      [...cells.keys()].sort(compareValues).map((value) => [value, mergeCells(cells.get(value) ?? [])]),
    );
  }
  if (Object.keys(overflow).length === 0) return { breakdowns: out };
  return { breakdowns: out, breakdowns_overflow: Object.fromEntries(Object.entries(overflow).sort()) };
}

function mergeCells(cells: readonly BreakdownStats[]): BreakdownStats {
  // Plain histograms: one cell at a time, dropped once its stats are encoded.
  const ttft = createHistogram();
  const e2e = createHistogram();
  const counts = { requests: 0, ok: 0, failed: 0, inputTokens: 0, cachedTokens: 0, outputTokens: 0 };
  for (const cell of cells) {
    counts.requests += cell.requests;
    counts.ok += cell.ok;
    counts.failed += cell.failed;
    counts.inputTokens += cell.input_tokens;
    counts.cachedTokens += cell.cached_tokens;
    counts.outputTokens += cell.output_tokens;
    addEncoded(ttft, cell.histograms.ttft_ms);
    addEncoded(e2e, cell.histograms.e2e_ms);
  }
  return breakdownStats(counts, ttft, e2e);
}

function addEncoded(into: Histogram, encoded: string | undefined): void {
  if (encoded !== undefined) into.add(decodeHistogram(encoded));
}
