/**
 * trend.csv: the long form, one row per (run, group, metric) in trend order: the run (position, name,
 * label, commit, run_id, started_at), the group and metric, the value exactly as summary.json holds it (ms
 * for *_ms metrics), and compare's verdict of this run against the one before with its statistics (empty
 * on the first run). `change_point` is `regression` or `improvement` where the verdict makes one.
 */
import { stringify } from 'csv-stringify/sync';
import type { TrendResult } from './trend-runs.js';
import { changeKindOf } from './trend-runs.js';

export const TREND_CSV = 'trend.csv';

export const TREND_CSV_COLUMNS = [
  'position',
  'run',
  'label',
  'commit',
  'run_id',
  'started_at',
  'group',
  'metric',
  'unit',
  'value',
  'previous',
  'change',
  'relative_change',
  'verdict',
  'p_value',
  'p_adjusted',
  'test',
  'tolerance',
  'change_point',
] as const;

export function formatTrendCsv(trend: TrendResult): string {
  const rows: unknown[][] = [];
  for (const run of trend.runs) {
    for (const series of trend.series) {
      const step = series.steps[run.position - 1] ?? null;
      rows.push([
        run.position,
        run.name,
        run.label ?? '',
        run.commit ?? '',
        run.runId,
        run.startedAt,
        series.group,
        series.metricId,
        series.unit,
        series.values[run.position - 1] ?? '',
        step?.baseline ?? '',
        step?.absoluteChange ?? '',
        step?.relativeChange ?? '',
        step?.verdict ?? '',
        step?.pValue ?? '',
        step?.pAdjusted ?? '',
        step?.test ?? '',
        step?.tolerance ?? '',
        step === null ? '' : (changeKindOf(step.verdict) ?? ''),
      ]);
    }
  }
  return stringify(rows, { header: true, columns: [...TREND_CSV_COLUMNS] });
}
