/**
 * summary.csv: one row per group x metric with its statistics (ms for *_ms metrics), plus the group's
 * counters and rates as metric rows without percentiles, so a spreadsheet gets everything in one table.
 * The rates are the registry's group values (metrics/metric-registry.ts GROUP_VALUE_DEFINITIONS: error
 * rate, throughputs, answer-check pass rates), so a value added there gets its row here.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { GROUP_VALUES as GROUP_VALUE_READERS } from '../aggregate/thresholds.js';
import { GROUP_VALUES } from '../metrics/metric-registry.js';
import type { GroupSummary, MetricStats } from '../metrics/run-summary.js';

export const SUMMARY_CSV = 'summary.csv';

// p1 last: columns added at the end keep older readers' positions.
const STATS: readonly (keyof MetricStats)[] = ['count', 'mean', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 'p999', 'p1'];

export function formatSummaryCsv(groups: readonly GroupSummary[]): string {
  const rows: unknown[][] = [];
  for (const group of groups) {
    const prefix = [group.key, group.scenario, group.model, group.tier ?? ''];
    for (const [metric, stats] of Object.entries(group.metrics)) {
      if (!stats) continue;
      rows.push([...prefix, metric, ...STATS.map((stat) => round(stats[stat]))]);
    }
    const single = (metric: string, value: number): void => {
      rows.push([...prefix, metric, '', round(value), ...STATS.slice(2).map(() => '')]);
    };
    single('requests_ok', group.requests.ok);
    single('requests_failed', group.requests.failed);
    single('requests_throttled', group.requests.errors['http_429'] ?? 0);
    single('requests_dropped', group.requests.dropped);
    single('requests_attempts', group.requests.attempts ?? 0);
    for (const [errorClass, count] of Object.entries(group.requests.retried ?? {}))
      single(`retried_${errorClass}`, count);
    // Every group value of the registry, read as thresholds read it; one the group lacks (a pass rate
    // of a group whose answers were not checked) has no row.
    for (const name of GROUP_VALUES) {
      const value = GROUP_VALUE_READERS[name](group);
      if (value !== null) single(name, value);
    }
  }
  return stringify(rows, { header: true, columns: ['group', 'scenario', 'model', 'tier', 'metric', ...STATS] });
}

export async function writeSummaryCsv(runDir: string, groups: readonly GroupSummary[]): Promise<string> {
  const path = join(runDir, SUMMARY_CSV);
  await writeFile(path, formatSummaryCsv(groups), 'utf8');
  return path;
}

function round(value: number | undefined): number | string {
  return value !== undefined && Number.isFinite(value) ? Math.round(value * 1000) / 1000 : '';
}
