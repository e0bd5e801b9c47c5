/**
 * breakdowns.csv: one row per group x request label x value (summary.json `groups[].breakdowns`), with its
 * counts, TTFT and E2E stats in ms, token sums and cache hit ratio, so a spreadsheet can chart a prefix
 * group's cache hits or a session turn's TTFT. Written only by runs whose requests had labels.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { BreakdownLatency } from '../metrics/breakdown-summary.js';
import type { GroupSummary } from '../metrics/run-summary.js';

export const BREAKDOWNS_CSV = 'breakdowns.csv';

const LATENCY_STATS: readonly (keyof BreakdownLatency)[] = ['count', 'mean', 'p50', 'p90', 'p99'];

export const BREAKDOWN_COLUMNS: readonly string[] = [
  'group',
  'scenario',
  'model',
  'tier',
  'label',
  'value',
  'requests',
  'ok',
  'failed',
  ...LATENCY_STATS.map((stat) => `ttft_ms_${stat}`),
  ...LATENCY_STATS.map((stat) => `e2e_ms_${stat}`),
  'input_tokens',
  'cached_tokens',
  'output_tokens',
  'cache_hit_ratio',
];

/** The file's text, or null when no group has breakdowns. */
export function formatBreakdownsCsv(groups: readonly GroupSummary[]): string | null {
  const rows: (string | number)[][] = [];
  for (const group of groups) {
    for (const [label, values] of Object.entries(group.breakdowns ?? {})) {
      for (const [value, cell] of Object.entries(values)) {
        rows.push([
          group.key,
          group.scenario,
          group.model,
          group.tier ?? '',
          label,
          value,
          cell.requests,
          cell.ok,
          cell.failed,
          ...LATENCY_STATS.map((stat) => cell.ttft_ms[stat]),
          ...LATENCY_STATS.map((stat) => cell.e2e_ms[stat]),
          cell.input_tokens,
          cell.cached_tokens,
          cell.output_tokens,
          cell.cache_hit_ratio ?? '',
        ]);
      }
    }
  }
  return rows.length === 0 ? null : stringify(rows, { header: true, columns: [...BREAKDOWN_COLUMNS] });
}

/** Writes breakdowns.csv into `runDir` when some group has breakdowns; returns its path, or null. */
export async function writeBreakdownsCsv(runDir: string, groups: readonly GroupSummary[]): Promise<string | null> {
  const text = formatBreakdownsCsv(groups);
  if (text === null) return null;
  const path = join(runDir, BREAKDOWNS_CSV);
  await writeFile(path, text, 'utf8');
  return path;
}
