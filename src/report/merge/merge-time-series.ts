/**
 * The shards' per-second time series as one: each shard's `second` moved onto the merged run's clock
 * (its start - the earliest start + second, in whole wall-clock seconds), then rows of the same group and
 * second add (started, completed, failed, throttled, output tokens, in flight). Percentiles cannot be
 * merged from per-second rows (the requests behind them are gone), so the merged percentile columns are
 * null; the rate-limit headroom is the lowest any shard saw (they draw on one quota).
 *
 * The server's columns (target.server_metrics, `server_*`) are the deployment's, not a shard's: they come
 * from the one shard marked `keepsServer` (the one that scraped), moved by its offset like its client
 * columns, never added; every other shard's are dropped.
 */
import type { TimeSeriesPoint } from '../../metrics/run-summary.js';

/** One shard's rows and how far its start lies after the earliest start, ms. */
export interface ShardSeries {
  readonly offsetMs: number;
  readonly points: readonly TimeSeriesPoint[];
  /** This shard's `server_*` columns are the merged run's (at most one shard: merge-runs.ts picks it). */
  readonly keepsServer?: boolean;
}

const ADDED = ['started', 'completed', 'failed', 'throttled', 'output_tokens', 'in_flight'] as const;

function lowest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/** The merged rows, ordered by group (first appearance) and second. */
export function mergeTimeSeries(shards: readonly ShardSeries[]): TimeSeriesPoint[] {
  const byGroup = new Map<string, Map<number, TimeSeriesPoint>>();
  for (const { offsetMs, points, keepsServer = false } of shards)
    for (const { server, ...point } of points) {
      const second = Math.max(0, Math.floor((offsetMs + point.second * 1000) / 1000));
      let rows = byGroup.get(point.group);
      if (rows === undefined) {
        rows = new Map();
        byGroup.set(point.group, rows);
      }
      let row = rows.get(second);
      if (row === undefined) {
        row = { ...point, second, ttft_p50_ms: null, ttft_p99_ms: null, e2e_p50_ms: null };
        rows.set(second, row);
      } else {
        for (const column of ADDED) row[column] += point[column];
        row.ratelimit_remaining_requests = lowest(row.ratelimit_remaining_requests, point.ratelimit_remaining_requests);
        row.ratelimit_remaining_tokens = lowest(row.ratelimit_remaining_tokens, point.ratelimit_remaining_tokens);
      }
      if (keepsServer && server !== undefined) row.server = server;
    }
  return [...byGroup.values()].flatMap((rows) => [...rows.values()].sort((a, b) => a.second - b.second));
}
