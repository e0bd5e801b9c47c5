/**
 * Bucket bounds of the live Prometheus histograms (`inferbench run --metrics-port`), in seconds, the base
 * unit Prometheus expects. Roughly log-spaced (1-2-5 steps per decade, with a few extra steps where LLM
 * latencies cluster), so histogram_quantile's linear interpolation inside a bucket stays within about a
 * third of the bucket's value, and fixed: every shard and every run exposes the same `le` values, so
 * buckets add across shards with `sum by (le)`.
 */

/** TTFT and end-to-end latency: 5 ms (a cached prompt on a fast GPU) to 120 s (a long answer). */
export const LATENCY_BUCKETS_S: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10, 15, 20, 30, 60, 120,
];

/** Inter-token gaps: 1 ms (speculative decoding bursts) to 5 s (a stall), finest around 10-50 ms. */
export const ITL_BUCKETS_S: readonly number[] = [
  0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1,
  2.5, 5,
];

/** The harness's own lateness: 0.1 ms (healthy) to 10 s (a client that cannot keep up). */
export const SCHEDULE_LAG_BUCKETS_S: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
