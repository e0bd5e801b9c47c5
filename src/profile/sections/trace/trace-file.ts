/**
 * Trace replay's input (`load: { mode: trace, path }`): a file of timestamped requests, read and checked
 * once, then shared by the schedule (arrival times) and the workload (each request's lengths). It lives in
 * profile/ because both need it and neither may import the other; a bad file is a profile error found at
 * load time, naming the file, line and field.
 *
 * Formats (one record per line, timestamps relative to the first record):
 * - `inferbench`: JSONL `{ timestamp, input_tokens, output_tokens }`, timestamps in ms by default;
 * - `mooncake`: the Mooncake traces' JSONL `{ timestamp, input_length, output_length, hash_ids }`, ms;
 * - `burstgpt`: BurstGPT's CSV (`Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type`) or
 *   JSONL with those fields, seconds.
 * A file whose first line is not a JSON object is read as CSV with a header row (any format's fields).
 * Records must be in time order (equal timestamps are simultaneous arrivals): an earlier timestamp after a
 * later one is an error, never silently sorted, so that record n is always the n-th line's request.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { fileText } from '../../file-text.js';
import { extname } from 'node:path';
import { InferbenchError } from '../../../errors.js';
import { parse } from 'csv-parse/sync';

export const TRACE_FORMATS = ['inferbench', 'mooncake', 'burstgpt'] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];
export type TimestampUnit = 'ms' | 's';

/** `load` of a trace replay as resolved: the rest of an open loop (max_concurrency, drops) applies. */
export interface TraceSpec {
  /** Absolute path of the trace file. */
  readonly path: string;
  /** `auto`: from the fields of the first record. */
  readonly format: TraceFormat | 'auto';
  /** null: the format's unit (ms for inferbench and mooncake, s for burstgpt). */
  readonly timestampUnit: TimestampUnit | null;
  /** Replay speed: 2 replays twice as fast (offsets divided by it). */
  readonly timeScale: number;
  /** Trace time (ms from the first record) at which the replay starts; earlier records are skipped. */
  readonly startMs: number;
  /** Set by sharding (schedule/shard.ts): this share replays records index-1, index-1+count, ... */
  readonly shard?: { readonly index: number; readonly count: number };
}

/** The records a replay sends, in order: offsets from the replay's start (trace ms, unscaled) and lengths. */
export interface ParsedTrace {
  readonly format: TraceFormat;
  readonly timestampUnit: TimestampUnit;
  readonly count: number;
  readonly offsetsMs: Float64Array;
  readonly inputTokens: Uint32Array;
  readonly outputTokens: Uint32Array;
}

/** A trace file's records and its content hash. */
export interface TraceRecords extends ParsedTrace {
  /** SHA-256 of the file's bytes (the workload hash's view of it). */
  readonly sha256: string;
}

const FIELDS = {
  inferbench: { timestamp: 'timestamp', input: 'input_tokens', output: 'output_tokens', unit: 'ms' },
  mooncake: { timestamp: 'timestamp', input: 'input_length', output: 'output_length', unit: 'ms' },
  burstgpt: { timestamp: 'Timestamp', input: 'Request tokens', output: 'Response tokens', unit: 's' },
} as const satisfies Record<TraceFormat, { timestamp: string; input: string; output: string; unit: TimestampUnit }>;

const HINT =
  'a trace is JSONL of { timestamp, input_tokens, output_tokens } (or Mooncake\'s { timestamp, input_length, output_length }, or BurstGPT\'s CSV/JSONL with "Timestamp", "Request tokens", "Response tokens"), in time order';

const cache = new Map<string, TraceRecords>();

/** The records `spec` replays (before sharding); read once per file, format, unit and start. */
export function loadTrace(spec: TraceSpec): TraceRecords {
  let stamp: string;
  try {
    const stat = statSync(spec.path);
    stamp = `${stat.size}:${stat.mtimeMs}`;
  } catch (error) {
    throw unreadable(spec.path, error);
  }
  const key = [spec.path, stamp, spec.format, spec.timestampUnit ?? '', spec.startMs].join('\u0000');
  let records = cache.get(key);
  if (records === undefined) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(spec.path);
    } catch (error) {
      throw unreadable(spec.path, error);
    }
    const parsed = parseTrace(fileText(bytes, spec.path), spec.path, spec.format, spec.timestampUnit, spec.startMs);
    records = { ...parsed, sha256: createHash('sha256').update(bytes).digest('hex') };
    cache.set(key, records);
  }
  return records;
}

/** Trace length of a replay in ms of trace time (first to last replayed record). */
export function traceSpanMs(records: ParsedTrace): number {
  return records.count === 0 ? 0 : (records.offsetsMs[records.count - 1] as number);
}

/**
 * Parses trace text. `name` names the file in errors (`file:line: field: what`). Records before `startMs`
 * (trace ms from the first record) are left out; offsets are from `startMs`.
 */
export function parseTrace(
  text: string,
  name: string,
  format: TraceFormat | 'auto',
  unit: TimestampUnit | null,
  startMs = 0,
): ParsedTrace {
  const table = readRows(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, name);
  const first = table.rows[0];
  if (first === undefined) throw new InferbenchError('BAD_PROFILE', `trace ${name} has no records`, { hint: HINT });
  const resolved = format === 'auto' ? detectFormat(table.columns(first), name, first.line, extname(name)) : format;
  const fields = FIELDS[resolved];
  const timestampUnit = unit ?? fields.unit;
  const msPer = timestampUnit === 's' ? 1000 : 1;
  const read = (row: Row, field: string, count: boolean): number =>
    numberField(table.value(row, field), field, name, row.line, count);
  const offsets: number[] = [];
  const inputs: number[] = [];
  const outputs: number[] = [];
  let firstMs = Number.NaN;
  let previousMs = Number.NEGATIVE_INFINITY;
  let previousLine = 0;
  for (const row of table.rows) {
    const ms = read(row, fields.timestamp, false) * msPer;
    if (ms < previousMs)
      throw new InferbenchError(
        'BAD_PROFILE',
        `${name}:${row.line}: ${fields.timestamp}: ${ms / msPer} is earlier than the previous record's (line ${previousLine}); records must be in time order`,
        { hint: 'sort the trace by timestamp first (e.g. sort -n, or jq -s "sort_by(.timestamp)[]" -c)' },
      );
    previousMs = ms;
    previousLine = row.line;
    const input = read(row, fields.input, true);
    const output = read(row, fields.output, true);
    if (Number.isNaN(firstMs)) firstMs = ms;
    const offset = ms - firstMs - startMs;
    if (offset < 0) continue;
    offsets.push(offset);
    inputs.push(input);
    outputs.push(output);
  }
  return {
    format: resolved,
    timestampUnit,
    count: offsets.length,
    offsetsMs: Float64Array.from(offsets),
    inputTokens: Uint32Array.from(inputs),
    outputTokens: Uint32Array.from(outputs),
  };
}

/** A record: a JSONL line's object, or a CSV line's cells (read through the header). */
interface Row {
  readonly line: number;
  readonly data: Record<string, unknown> | string[];
}

/** The rows of a file, with how to read a field of one and which fields it has. */
interface Table {
  readonly rows: Row[];
  value(row: Row, field: string): unknown;
  columns(row: Row): readonly string[];
}

/** JSONL objects, or CSV rows keyed by the header when the first line is not a JSON object. */
function readRows(text: string, name: string): Table {
  const lines = text.split(/\r?\n/);
  const firstIndex = lines.findIndex((line) => line.trim() !== '');
  const rows: Row[] = [];
  if (firstIndex >= 0 && !lines[firstIndex]!.trimStart().startsWith('{')) return readCsv(text, name);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new InferbenchError('BAD_PROFILE', `${name}:${i + 1}: not valid JSON`, { hint: HINT });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new InferbenchError('BAD_PROFILE', `${name}:${i + 1}: expected a JSON object`, { hint: HINT });
    rows.push({ line: i + 1, data: value as Record<string, unknown> });
  });
  return {
    rows,
    value: (row, field) => (row.data as Record<string, unknown>)[field],
    columns: (row) => Object.keys(row.data),
  };
}

/**
 * CSV with a header row, read by csv-parse (quoted cells, "" escapes, CRLF); its errors name the line. Rows
 * are kept as cell arrays and read through the header's column index. A file without a single double quote
 * (BurstGPT's 1.4 M lines) has no quoting to undo: its lines are split on commas directly, the same cells
 * csv-parse gives, several times faster (csv-parse's per-record line info is most of its cost there).
 */
function readCsv(text: string, name: string): Table {
  const parsed = text.includes('"') ? parseQuotedCsv(text, name) : splitPlainCsv(text);
  const header = parsed[0]?.record ?? [];
  const headerLine = parsed[0]?.info.lines ?? 1;
  const index = new Map(header.map((column, c) => [column, c]));
  const rows: Row[] = parsed.slice(1).map(({ record, info }) => {
    if (record.length !== header.length)
      throw new InferbenchError(
        'BAD_PROFILE',
        `${name}:${info.lines}: ${record.length} columns where the header (line ${headerLine}) has ${header.length}`,
        { hint: HINT },
      );
    return { line: info.lines, data: record };
  });
  return {
    rows,
    value: (row, field) => {
      const c = index.get(field);
      return c === undefined ? undefined : (row.data as string[])[c];
    },
    columns: () => header,
  };
}

/** Cells and line number of every non-empty line of CSV text without quotes. */
function splitPlainCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() !== '')
      records.push({ record: line.split(',').map((cell) => cell.trim()), info: { lines: i + 1 } });
  }
  return records;
}

function parseQuotedCsv(text: string, name: string): CsvRecord[] {
  try {
    // Column counts are checked by the caller, where the message can name the header's line.
    return parse(text, {
      info: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
    }) as unknown as CsvRecord[];
  } catch (error) {
    const at = (error as { lines?: number }).lines;
    throw new InferbenchError('BAD_PROFILE', `${name}${at === undefined ? '' : `:${at}`}: ${csvProblem(error)}`, {
      hint: HINT,
    });
  }
}

interface CsvRecord {
  readonly record: string[];
  readonly info: { readonly lines: number };
}

/** csv-parse's message without its own "at line N" tail (the line is already in front). */
function csvProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s*(?:on|at) line \d+\s*$/, '');
}

function detectFormat(columns: readonly string[], name: string, line: number, extension: string): TraceFormat {
  for (const format of TRACE_FORMATS) if (columns.includes(FIELDS[format].input)) return format;
  const csv = extension.toLowerCase() === '.csv' ? ' header' : '';
  throw new InferbenchError(
    'BAD_PROFILE',
    `${name}:${line}: the first record${csv} has none of input_tokens, input_length, "Request tokens": cannot tell the trace's format`,
    { hint: `${HINT}; or set load.format` },
  );
}

/** A finite number (JSON number or numeric CSV cell); token counts must be whole and >= 0. */
function numberField(raw: unknown, field: string, name: string, line: number, count: boolean): number {
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw !== '' ? Number(raw) : Number.NaN;
  if (count ? Number.isInteger(value) && value >= 0 && value <= 0xffffffff : Number.isFinite(value)) return value;
  const at = `${name}:${line}: ${field}`;
  if (raw === undefined || raw === null || raw === '')
    throw new InferbenchError('BAD_PROFILE', `${at}: missing`, { hint: HINT });
  if (!Number.isFinite(value))
    throw new InferbenchError('BAD_PROFILE', `${at}: expected a number, got ${JSON.stringify(raw)}`, { hint: HINT });
  throw new InferbenchError('BAD_PROFILE', `${at}: expected a whole number of tokens >= 0, got ${value}`, {
    hint: HINT,
  });
}

function unreadable(path: string, error: unknown): InferbenchError {
  return new InferbenchError(
    'BAD_PROFILE',
    `cannot read trace ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    { cause: error, hint: 'load.path is relative to the profile file' },
  );
}
