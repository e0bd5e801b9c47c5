/**
 * summary.json `groups[].breakdowns`: a group's requests counted apart per request label and value (the
 * workload's RequestPlan.labels: `prefix`, `turn`, `tool_round`, ...). Each cell has its own counts, token
 * sums, TTFT and E2E stats and the HDR histograms they come from, so shards merge exactly.
 */

/** The few stats of a breakdown cell's latency, in ms. */
export interface BreakdownLatency {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
}

/** One (label, value) of a group. */
export interface BreakdownStats {
  /** Requests that ended (ok + failed + throttled). */
  requests: number;
  ok: number;
  /** Ended with an error (429s included: they are not ok). */
  failed: number;
  /** Of the ok requests. */
  ttft_ms: BreakdownLatency;
  e2e_ms: BreakdownLatency;
  /** Sums over the ok requests. */
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  /** cached_tokens / input_tokens over the ok requests; null without input tokens. */
  cache_hit_ratio: number | null;
  /** HdrHistogram compressed base64 of ttft_ms and e2e_ms (integer microseconds), for exact merges. */
  histograms: { ttft_ms?: string; e2e_ms?: string };
}

/** label -> value -> stats. */
export type GroupBreakdowns = Record<string, Record<string, BreakdownStats>>;

/** Values a label keeps apart per group; the rest are counted under OVERFLOW_VALUE. */
export const MAX_VALUES_PER_LABEL = 1000;
/** The value that counts a label's values beyond MAX_VALUES_PER_LABEL. */
export const OVERFLOW_VALUE = 'other';
