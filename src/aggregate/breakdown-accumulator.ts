/**
 * A group's breakdowns (summary.json `groups[].breakdowns`): its requests counted apart per request label
 * and value (RequestRecord.labels: `prefix`, `turn`, `tool_round`, ...). Each (label, value) cell keeps
 * counts, token sums over its ok requests and HDR histograms of their ttft_ms and e2e_ms (the run's
 * histogram settings, packed storage: histogram.ts createPackedHistogram), so shards merge exactly (breakdown-merge.ts). A label keeps at most
 * MAX_VALUES_PER_LABEL values apart; later values are counted under `other` (and in
 * `breakdowns_overflow`), so a label with a value per request cannot grow without bound.
 */
import type { RequestRecord } from '../client/request-record.js';
import {
  type BreakdownLatency,
  type BreakdownStats,
  type GroupBreakdowns,
  MAX_VALUES_PER_LABEL,
  OVERFLOW_VALUE,
} from '../metrics/breakdown-summary.js';
import type { RecordedValues } from '../metrics/request-values.js';
import {
  createPackedHistogram,
  encodeHistogram,
  metricStatsFromHistogram,
  unpackHistogram,
  type Histogram,
} from './histogram.js';

/** One (label, value) of a group while the run goes. */
export class BreakdownCell {
  requests = 0;
  ok = 0;
  failed = 0;
  inputTokens = 0;
  cachedTokens = 0;
  outputTokens = 0;
  // Packed: a cell costs a few KB instead of ~190 KB (two plain histograms), so 1,000 values of a label
  // cost megabytes, not hundreds of them; recording is slower but only two values per labelled request.
  readonly ttft: Histogram = createPackedHistogram();
  readonly e2e: Histogram = createPackedHistogram();

  add(record: RequestRecord, values: RecordedValues): void {
    this.requests++;
    if (record.errorClass !== null) {
      this.failed++;
      return;
    }
    this.ok++;
    recordUs(this.ttft, values.ttft_us);
    recordUs(this.e2e, values.e2e_us);
    if (!Number.isNaN(values.input_tokens)) this.inputTokens += values.input_tokens;
    if (!Number.isNaN(values.cached_tokens)) this.cachedTokens += values.cached_tokens;
    if (!Number.isNaN(values.output_tokens)) this.outputTokens += values.output_tokens;
  }

  /** The cell's summary, read from plain copies of its packed histograms (histogram.ts unpackHistogram). */
  stats(): BreakdownStats {
    return breakdownStats(this, unpackHistogram(this.ttft), unpackHistogram(this.e2e));
  }
}

function recordUs(histogram: Histogram, valueUs: number): void {
  if (!Number.isNaN(valueUs)) histogram.recordValue(valueUs > 0 ? Math.round(valueUs) : 0);
}

/** The summary of a cell from its counts and histograms (also what a merge recomputes). */
export function breakdownStats(
  counts: {
    requests: number;
    ok: number;
    failed: number;
    inputTokens: number;
    cachedTokens: number;
    outputTokens: number;
  },
  ttft: Histogram,
  e2e: Histogram,
): BreakdownStats {
  const histograms: BreakdownStats['histograms'] = {};
  if (ttft.totalCount > 0) histograms.ttft_ms = encodeHistogram(ttft);
  if (e2e.totalCount > 0) histograms.e2e_ms = encodeHistogram(e2e);
  return {
    requests: counts.requests,
    ok: counts.ok,
    failed: counts.failed,
    ttft_ms: latencyStats(ttft),
    e2e_ms: latencyStats(e2e),
    input_tokens: counts.inputTokens,
    cached_tokens: counts.cachedTokens,
    output_tokens: counts.outputTokens,
    cache_hit_ratio:
      counts.inputTokens > 0 ? Math.round((counts.cachedTokens / counts.inputTokens) * 10000) / 10000 : null,
    histograms,
  };
}

function latencyStats(histogram: Histogram): BreakdownLatency {
  const stats = metricStatsFromHistogram(histogram, 1000);
  return { count: stats.count, mean: stats.mean, p50: stats.p50, p90: stats.p90, p99: stats.p99 };
}

/** Every label of one group: label -> value -> cell, values bounded per label. */
export class BreakdownAccumulator {
  readonly #labels = new Map<string, Map<string, BreakdownCell>>();
  /** Label -> requests counted under `other` because the label had too many values. */
  readonly #overflow = new Map<string, number>();
  readonly #maxValues: number;

  constructor(maxValues = MAX_VALUES_PER_LABEL) {
    this.#maxValues = maxValues;
  }

  /** Counts a finished (measured) request under each of its labels; a record without labels costs nothing. */
  add(record: RequestRecord, values: RecordedValues): void {
    const labels = record.labels;
    if (labels === null) return;
    for (const label in labels) this.#cell(label, labels[label] as string).add(record, values);
  }

  /** The summary's breakdowns, labels and values sorted; undefined when no request had a label. */
  summary(): GroupBreakdowns | undefined {
    if (this.#labels.size === 0) return undefined;
    const out: GroupBreakdowns = {};
    for (const label of [...this.#labels.keys()].sort()) {
      const cells = this.#labels.get(label) as Map<string, BreakdownCell>;
      out[label] = Object.fromEntries(
        [...cells.keys()].sort(compareValues).map((value) => [value, (cells.get(value) as BreakdownCell).stats()]),
      );
    }
    return out;
  }

  /** Label -> requests counted under `other`; undefined when no label overflowed. */
  overflow(): Record<string, number> | undefined {
    return this.#overflow.size === 0 ? undefined : Object.fromEntries(this.#overflow);
  }

  #cell(label: string, value: string): BreakdownCell {
    let cells = this.#labels.get(label);
    if (cells === undefined) {
      cells = new Map();
      this.#labels.set(label, cells);
    }
    let cell = cells.get(value);
    if (cell !== undefined) return cell;
    // `other` itself is not counted among the kept values, so the bound holds whatever the order.
    const kept = cells.size - (cells.has(OVERFLOW_VALUE) ? 1 : 0);
    if (kept >= this.#maxValues && value !== OVERFLOW_VALUE) {
      this.#overflow.set(label, (this.#overflow.get(label) ?? 0) + 1);
      return this.#cell(label, OVERFLOW_VALUE);
    }
    cell = new BreakdownCell();
    cells.set(value, cell);
    return cell;
  }
}

/**
 * Values in a natural order: numbers by value ("2" before "10"), then the rest ("p2" before "p10"), `none`
 * and `other` last.
 */
export function compareValues(a: string, b: string): number {
  const rank = (v: string): number => (v === OVERFLOW_VALUE ? 2 : v === 'none' ? 1 : 0);
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  return a.localeCompare(b, 'en', { numeric: true });
}

/** One harness warning per group label that had more than MAX_VALUES_PER_LABEL values (summary.json). */
export function breakdownOverflowWarnings(
  groups: readonly { key: string; breakdowns_overflow?: Record<string, number> }[],
): string[] {
  const warnings: string[] = [];
  for (const group of groups)
    for (const [label, requests] of Object.entries(group.breakdowns_overflow ?? {}))
      warnings.push(
        `group ${group.key}: label "${label}" had more than ${MAX_VALUES_PER_LABEL} values; ${requests} request(s) are counted under "${OVERFLOW_VALUE}" in its breakdowns`,
      );
  return warnings;
}
