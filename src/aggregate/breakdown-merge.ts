/**
 * Exact merge of two groups' breakdowns (shards of one run): per (label, value) counts and token sums add,
 * the ttft_ms and e2e_ms histograms add, and the stats are recomputed from the merged histograms. The
 * bound on values per label holds for the union too: values beyond it fold into `other`.
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
    const cells = new Map<string, BreakdownStats[]>();
    for (const side of [a.breakdowns?.[label], b.breakdowns?.[label]]) {
      for (const [value, stats] of Object.entries(side ?? {})) {
        let target = value;
        const kept = cells.size - (cells.has(OVERFLOW_VALUE) ? 1 : 0);
        if (!cells.has(value) && value !== OVERFLOW_VALUE && kept >= MAX_VALUES_PER_LABEL) {
          target = OVERFLOW_VALUE;
          overflow[label] = (overflow[label] ?? 0) + stats.requests;
        }
        const list = cells.get(target) ?? [];
        list.push(stats);
        cells.set(target, list);
      }
    }
    out[label] = Object.fromEntries(
      [...cells.keys()].sort(compareValues).map((value) => [value, mergeCells(cells.get(value) ?? [])]),
    );
  }
  return Object.keys(overflow).length > 0 ? { breakdowns: out, breakdowns_overflow: overflow } : { breakdowns: out };
}

function mergeCells(cells: readonly BreakdownStats[]): BreakdownStats {
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
