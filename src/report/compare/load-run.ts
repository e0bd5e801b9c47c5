/**
 * Reads a run's saved results back: summary.json (checked whole against the result schema), timeseries.csv
 * into TimeSeriesPoints, and the per-request values of requests.csv per group. Used by `report`,
 * `compare` and `run --repeat`. A run is named by its directory or by its summary.json path.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InferbenchError } from '../../errors.js';
import { runSummarySchema, SUMMARY_SCHEMA_VERSION } from '../../metrics/run-summary.js';
import type { RunSummary, TimeSeriesPoint } from '../../metrics/run-summary.js';
import { parseCsvRecords } from '../../util/csv-records.js';
import { checkResultsFile } from '../results-file-check.js';
import { TIMESERIES_COUNT_COLUMNS, TIMESERIES_NULLABLE_COLUMNS } from '../timeseries-csv.js';

export interface LoadedRun {
  /** The run directory (where summary.json lives). */
  readonly dir: string;
  readonly summaryPath: string;
  readonly summary: RunSummary;
}

/** Resolves a run directory or a summary.json path and reads the summary. Throws BAD_RESULTS on anything unusable. */
export async function loadRun(path: string): Promise<LoadedRun> {
  let summaryPath = path;
  if (existsSync(path) && statSync(path).isDirectory()) summaryPath = join(path, 'summary.json');
  if (!existsSync(summaryPath)) {
    const repeated = existsSync(join(dirname(summaryPath), 'repeat-summary.json'));
    throw new InferbenchError('BAD_RESULTS', `No run results at ${path}: ${summaryPath} does not exist.`, {
      hint: repeated
        ? 'This is the folder of `run --repeat`: pass one of its repeat-<i>/ folders.'
        : 'Pass a run directory (reports/<run-id>/) or the path of its summary.json.',
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(summaryPath, 'utf8'));
  } catch (cause) {
    throw new InferbenchError('BAD_RESULTS', `${summaryPath} is not valid JSON.`, {
      cause,
      hint: 'Was the run interrupted while writing it? Rerun the profile.',
    });
  }
  return { dir: dirname(summaryPath), summaryPath, summary: checkSummary(parsed, summaryPath) };
}

/**
 * summary.json checked whole against the result schema (metrics/run-summary.ts): every wrong value is a
 * BAD_RESULTS naming the file and the value's JSON path. Runs once per folder, never per request.
 */
function checkSummary(value: unknown, path: string): RunSummary {
  const version = (value as { schema_version?: unknown } | null)?.schema_version;
  if (value !== null && typeof value === 'object' && typeof version === 'number' && version !== SUMMARY_SCHEMA_VERSION)
    throw new InferbenchError(
      'BAD_RESULTS',
      `${path} is not an inferbench summary.json: schema_version ${version} is not supported (expected ${SUMMARY_SCHEMA_VERSION}).`,
      { hint: 'Read it with the inferbench version that wrote it (its `inferbench_version`).' },
    );
  return checkResultsFile(runSummarySchema, value, {
    path,
    what: 'an inferbench summary.json',
    hint: 'Pass the summary.json that `inferbench run` wrote, unedited.',
  });
}

// The columns timeseries.csv is written with (timeseries-csv.ts): read back the same way.
const NUMERIC_SERIES_COLUMNS = TIMESERIES_COUNT_COLUMNS;
const NULLABLE_SERIES_COLUMNS = TIMESERIES_NULLABLE_COLUMNS;

/**
 * Reads `<dir>/timeseries.csv`; an empty list when the file is absent. The server's columns
 * (target.server_metrics: every column named `server_*`) come back as each point's `server`.
 */
export async function loadTimeSeries(dir: string): Promise<TimeSeriesPoint[]> {
  const path = join(dir, 'timeseries.csv');
  if (!existsSync(path)) return [];
  const { columns, records } = parseCsvRecords(await readFile(path, 'utf8'));
  const serverColumns = columns.filter((c) => c.startsWith('server_'));
  const nullable = (cell: string | undefined): number | null =>
    cell === undefined || cell === '' ? null : Number(cell);
  return records.map((r) => {
    const point: Record<string, unknown> = { group: r['group'] ?? '' };
    for (const c of NUMERIC_SERIES_COLUMNS) point[c] = Number(r[c] ?? 0) || 0;
    for (const c of NULLABLE_SERIES_COLUMNS) point[c] = nullable(r[c]);
    if (serverColumns.length > 0) point['server'] = Object.fromEntries(serverColumns.map((c) => [c, nullable(r[c])]));
    return point as unknown as TimeSeriesPoint;
  });
}

/** Per group key, per column: the values of successful, non-warmup requests. */
export type RequestValues = Map<string, Map<string, number[]>>;

/** Reads `<dir>/requests.csv` into per-group numeric columns; null when the file is absent. */
export async function loadRequestValues(dir: string): Promise<RequestValues | null> {
  const path = join(dir, 'requests.csv');
  if (!existsSync(path)) return null;
  const { columns, records } = parseCsvRecords(await readFile(path, 'utf8'));
  const skip = new Set([
    'id',
    'group',
    'scenario',
    'model',
    'tier',
    'warmup',
    'status',
    'error_class',
    'timeout_phase',
    'error_code',
    'error_message',
    'finish_reason',
    'service_tier_used',
    'request_id',
    'response_id',
    'system_fingerprint',
    'retried_errors',
  ]);
  const numeric = columns.filter((c) => !skip.has(c));
  const out: RequestValues = new Map();
  for (const r of records) {
    if (r['warmup'] === '1' || r['warmup'] === 'true') continue;
    if (r['error_class']) continue;
    const key = r['group'] || `${r['scenario'] ?? ''}/${r['model'] ?? ''}/${r['tier'] || '-'}`;
    let group = out.get(key);
    if (!group) {
      group = new Map();
      out.set(key, group);
    }
    for (const c of numeric) {
      const cell = r[c];
      if (cell === undefined || cell === '') continue;
      const value = Number(cell);
      if (!Number.isFinite(value)) continue;
      let list = group.get(c);
      if (!list) {
        list = [];
        group.set(c, list);
      }
      list.push(value);
    }
  }
  return out;
}
