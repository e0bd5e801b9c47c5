/**
 * Reads a run's saved results back: summary.json (checked whole against the result schema), timeseries.csv
 * into TimeSeriesPoints, and the per-request values of requests.csv per group. Used by `report`,
 * `compare` and `run --repeat`. A run is named by its directory or by its summary.json path.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InferbenchError } from '../../errors.js';
import type { z } from 'zod';
import { runSummarySchema, SUMMARY_SCHEMA_VERSION } from '../../metrics/run-summary.js';
import type { RunSummary, TimeSeriesPoint } from '../../metrics/run-summary.js';
import { parseCsvRecords } from './parse-csv.js';
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

/** Problems listed in a message at most; a file with more is named with its count. */
const MAX_PROBLEMS = 12;

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
  const parsed = runSummarySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${path}: ${describeIssue(issue, value)}`);
  const shown = problems.slice(0, MAX_PROBLEMS);
  if (problems.length > shown.length) shown.push(`... and ${problems.length - shown.length} more`);
  throw new InferbenchError(
    'BAD_RESULTS',
    `${path} is not an inferbench summary.json (${plural(problems.length, 'wrong value')}):\n  ${shown.join('\n  ')}`,
    { hint: 'Pass the summary.json that `inferbench run` wrote, unedited.' },
  );
}

/** `groups[0].metrics.ttft_ms.p50: expected number, got string`. */
function describeIssue(issue: z.core.$ZodIssue, document: unknown): string {
  const at = formatJsonPath(issue.path);
  const value = valueAt(document, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return `${at}: expected ${issue.expected}, got ${kindOf(value)}`;
    case 'unrecognized_keys':
      return `${at}: unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_union':
      // A discriminated union names the kinds it expects; other unions (a price) are told by their forms.
      return `${at}: ${'discriminator' in issue ? issue.message : 'matches none of its forms'}, got ${shown(value)}`;
    default:
      return `${at}: ${issue.message.replace(/^Invalid (?:input|option): /, '')}, got ${shown(value)}`;
  }
}

function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment))
      out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out === '' ? '(the document)' : out;
}

function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let at = document;
  for (const segment of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[segment];
  }
  return at;
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** A value as a message shows it: scalars as JSON (long strings cut), objects and arrays by kind. */
function shown(value: unknown): string {
  if (value === undefined || (typeof value === 'object' && value !== null)) return kindOf(value);
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}..."` : text;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

// The columns timeseries.csv is written with (timeseries-csv.ts): read back the same way.
const NUMERIC_SERIES_COLUMNS = TIMESERIES_COUNT_COLUMNS;
const NULLABLE_SERIES_COLUMNS = TIMESERIES_NULLABLE_COLUMNS;

/** Reads `<dir>/timeseries.csv`; an empty list when the file is absent. */
export async function loadTimeSeries(dir: string): Promise<TimeSeriesPoint[]> {
  const path = join(dir, 'timeseries.csv');
  if (!existsSync(path)) return [];
  const { records } = parseCsvRecords(await readFile(path, 'utf8'));
  return records.map((r) => {
    const point: Record<string, string | number | null> = { group: r['group'] ?? '' };
    for (const c of NUMERIC_SERIES_COLUMNS) point[c] = Number(r[c] ?? 0) || 0;
    for (const c of NULLABLE_SERIES_COLUMNS) point[c] = r[c] === undefined || r[c] === '' ? null : Number(r[c]);
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
