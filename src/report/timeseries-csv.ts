/** timeseries.csv: one row per group x second of the run (second 0 = the run's start). */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { TimeSeriesPoint } from '../metrics/run-summary.js';

export const TIMESERIES_CSV = 'timeseries.csv';

/** Columns of timeseries.csv that always hold a number (counts per second). */
export const TIMESERIES_COUNT_COLUMNS = [
  'second',
  'started',
  'completed',
  'failed',
  'throttled',
  'output_tokens',
  'in_flight',
] as const satisfies readonly (keyof TimeSeriesPoint)[];

/** Columns of timeseries.csv that are empty when the second had no value (percentiles, headroom). */
export const TIMESERIES_NULLABLE_COLUMNS = [
  'ttft_p50_ms',
  'ttft_p99_ms',
  'e2e_p50_ms',
  'ratelimit_remaining_requests',
  'ratelimit_remaining_tokens',
] as const satisfies readonly (keyof TimeSeriesPoint)[];

type ClientColumn = Exclude<keyof TimeSeriesPoint, 'server'>;
const COLUMNS: readonly ClientColumn[] = ['group', ...TIMESERIES_COUNT_COLUMNS, ...TIMESERIES_NULLABLE_COLUMNS];

/**
 * The client's columns, then the server's (target.server_metrics: `server_running`, ..., the same on every
 * point) when the run scraped something.
 */
export function formatTimeSeriesCsv(points: readonly TimeSeriesPoint[]): string {
  const serverColumns = Object.keys(points.find((point) => point.server !== undefined)?.server ?? {});
  const rows = points.map((point) => [
    ...COLUMNS.map((column) => cell(point[column])),
    ...serverColumns.map((column) => cell(point.server?.[column] ?? null)),
  ]);
  return stringify(rows, { header: true, columns: [...COLUMNS, ...serverColumns] });
}

export async function writeTimeSeriesCsv(runDir: string, points: readonly TimeSeriesPoint[]): Promise<string> {
  const path = join(runDir, TIMESERIES_CSV);
  await writeFile(path, formatTimeSeriesCsv(points), 'utf8');
  return path;
}

function cell(value: string | number | null): string | number {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value * 1000) / 1000 : '';
  return value;
}
