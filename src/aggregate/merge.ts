/**
 * Exact merge of two summaries of the same group (shards of one run that ran at the same time):
 * histograms add, counters add, stats are recomputed from the merged histograms, so percentiles are those
 * of the union of the requests, not an average of percentiles. Throughput totals add over the longer of
 * the two measured windows. Nothing depends on which summary is `a` but the group's identity (the same
 * for both): merging shards in any order gives the same summary (samples: merge-samples.ts; breakdowns
 * beyond the bound on values: breakdown-merge.ts).
 */
import type { GroupSummary, MetricName, MetricStats } from '../metrics/run-summary.js';
import { METRIC_NAMES } from '../metrics/metric-registry.js';
import {
  createHistogram,
  decodeHistogram,
  encodeHistogram,
  metricScale,
  metricStatsFromHistogram,
} from './histogram.js';
import { groupDimensions } from './group-dimensions.js';
import { ERROR_SAMPLES_PER_CLASS } from './group-accumulator.js';
import { mergeBreakdowns } from './breakdown-merge.js';
import { mergeChecks } from './check-merge.js';
import { mergeSamples } from './merge-samples.js';

/** Counts of both, keys sorted: the same object (and JSON) whichever side is `a`. */
function addCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
    out[key] = (a[key] ?? 0) + (b[key] ?? 0);
  return out;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The metrics with a histogram in either summary: the registry's order, then any other name sorted. */
function metricNames(a: GroupSummary, b: GroupSummary): MetricName[] {
  const present = new Set([...Object.keys(a.histograms), ...Object.keys(b.histograms)]);
  const known = METRIC_NAMES.filter((name) => present.has(name));
  const other = [...present].filter((name) => !(METRIC_NAMES as readonly string[]).includes(name)).sort();
  return [...known, ...(other as MetricName[])];
}

/** Merges `b` into a copy of `a` (same group key expected; a's identity is kept). */
export function mergeGroupSummaries(a: GroupSummary, b: GroupSummary): GroupSummary {
  const metrics: Partial<Record<MetricName, MetricStats>> = {};
  const histograms: Partial<Record<MetricName, string>> = {};
  for (const metric of metricNames(a, b)) {
    // Both added to an empty histogram: its range and encoding do not depend on which side came first.
    const merged = createHistogram();
    for (const encoded of [a.histograms[metric], b.histograms[metric]])
      if (encoded !== undefined) merged.add(decodeHistogram(encoded));
    metrics[metric] = metricStatsFromHistogram(merged, metricScale(metric));
    histograms[metric] = encodeHistogram(merged);
  }

  const samples: Record<string, string[]> = {};
  const classes = new Set([...Object.keys(a.requests.error_samples), ...Object.keys(b.requests.error_samples)]);
  for (const errorClass of [...classes].sort()) {
    const lists = [a.requests.error_samples[errorClass], b.requests.error_samples[errorClass]];
    samples[errorClass] = mergeSamples(lists, ERROR_SAMPLES_PER_CLASS);
  }

  const ok = a.requests.ok + b.requests.ok;
  const failed = a.requests.failed + b.requests.failed;
  const durationMs = Math.max(a.duration_ms, b.duration_ms);
  const total = (pick: (g: GroupSummary) => number): number =>
    pick(a) * (a.duration_ms / 1000) + pick(b) * (b.duration_ms / 1000);
  const perS = (n: number): number => (durationMs > 0 ? round3(n / (durationMs / 1000)) : 0);
  return {
    scenario: a.scenario,
    model: a.model,
    tier: a.tier,
    key: a.key,
    ...groupDimensions(a.class ?? null, a.reasoning_effort ?? null),
    requests: {
      ok,
      failed,
      dropped: a.requests.dropped + b.requests.dropped,
      errors: addCounts(a.requests.errors, b.requests.errors),
      attempts: a.requests.attempts + b.requests.attempts,
      retried: addCounts(a.requests.retried, b.requests.retried),
      error_samples: samples,
    },
    error_rate: ok + failed > 0 ? failed / (ok + failed) : 0,
    throughput: {
      // Requests are counted exactly; token totals are recovered from rate x window.
      requests_per_s: perS(ok),
      output_tokens_per_s: perS(total((g) => g.throughput.output_tokens_per_s)),
      total_tokens_per_s: perS(total((g) => g.throughput.total_tokens_per_s)),
      goodput_per_s: perS(total((g) => g.throughput.goodput_per_s)),
      ...mergeInputRates(a, b, total, perS),
    },
    duration_ms: durationMs,
    metrics,
    histograms,
    tokens: {
      estimated_requests: a.tokens.estimated_requests + b.tokens.estimated_requests,
      mismatched_requests: a.tokens.mismatched_requests + b.tokens.mismatched_requests,
      max_mismatch: Math.max(a.tokens.max_mismatch, b.tokens.max_mismatch),
    },
    tiers_used: addCounts(a.tiers_used, b.tiers_used),
    ...mergeBreakdowns(a, b),
    ...mergeChecks(a, b),
  };
}

/** inputs_per_s and input_tokens_per_s (api: embeddings), recovered from rate x window as token rates are; absent when neither part has them. */
function mergeInputRates(
  a: GroupSummary,
  b: GroupSummary,
  total: (pick: (g: GroupSummary) => number) => number,
  perS: (n: number) => number,
): Pick<GroupSummary['throughput'], 'inputs_per_s' | 'input_tokens_per_s'> {
  if (a.throughput.inputs_per_s === undefined && b.throughput.inputs_per_s === undefined) return {};
  return {
    inputs_per_s: perS(total((g) => g.throughput.inputs_per_s ?? 0)),
    input_tokens_per_s: perS(total((g) => g.throughput.input_tokens_per_s ?? 0)),
  };
}
