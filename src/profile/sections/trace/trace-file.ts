/**
 * Trace replay's input (`load: { mode: trace, path }`): a file of timestamped requests, read and checked
 * once when the profile is resolved; its records travel in the resolved profile (`load.trace.records`) to
 * the schedule (arrival times) and the workload (each request's lengths), which never read the file. It
 * lives in profile/ because both need it and neither may import the other; a bad file is a profile error
 * found at load time, naming the file, line and field.
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
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse } from 'csv-parse/sync';
import { InferbenchError } from '../../../errors.js';
import { fileText } from '../../file-text.js';
import type { ParsedTrace, TimestampUnit, TraceFormat, TraceRecords, TraceSpec } from '../../resolved-profile.js';

export const TRACE_FORMATS = ['inferbench', 'mooncake', 'burstgpt'] as const satisfies readonly TraceFormat[];

/** What decides a trace's records: the file and how it is read (not the replay speed or the shard). */
export type TraceSource = Pick<TraceSpec, 'path' | 'format' | 'timestampUnit' | 'startMs'>;

/**
 * Reads traces for one profile resolution: each file (with its settings) is read once, when the checks
 * first look at it, and the resolution takes the same records. Nothing is kept beyond the reader.
 */
export type TraceReader = (source: TraceSource) => TraceRecords;

export function createTraceReader(): TraceReader {
  const read = new Map<string, TraceRecords>();
  return (source) => {
    const key = JSON.stringify([source.path, source.format, source.timestampUnit, source.startMs]);
    let records = read.get(key);
    if (records === undefined) {
      records = readTrace(source);
      read.set(key, records);
    }
    return records;
  };
}

const FIELDS = {
  inferbench: { timestamp: 'timestamp', input: 'input_tokens', output: 'output_tokens', unit: 'ms' },
  mooncake: { timestamp: 'timestamp', input: 'input_length', output: 'output_length', unit: 'ms' },
  burstgpt: { timestamp: 'Timestamp', input: 'Request tokens', output: 'Response tokens', unit: 's' },
} as const satisfies Record<TraceFormat, { timestamp: string; input: string; output: string; unit: TimestampUnit }>;

const HINT =
  'a trace is JSONL of { timestamp, input_tokens, output_tokens } (or Mooncake\'s { timestamp, input_length, output_length }, or BurstGPT\'s CSV/JSONL with "Timestamp", "Request tokens", "Response tokens"), in time order';

/** Reads and parses the records `source` replays (before sharding), with the file's content hash. */
export function readTrace(source: TraceSource): TraceRecords {
  let bytes: Buffer;
  try {
    bytes = readFileSync(source.path);
  } catch (error) {
    throw unreadable(source.path, error);
  }
  const text = fileText(bytes, source.path);
  const parsed = parseTrace(text, source.path, source.format, source.timestampUnit, source.startMs);
  return { ...parsed, sha256: createHash('sha256').update(bytes).digest('hex') };
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
  if (table.count === 0) throw new InferbenchError('BAD_PROFILE', `trace ${name} has no records`, { hint: HINT });
  const resolved = format === 'auto' ? detectFormat(table, name, extname(name)) : format;
  const fields = FIELDS[resolved];
  const timestampUnit = unit ?? fields.unit;
  const msPer = timestampUnit === 's' ? 1000 : 1;
  const read = (row: number, field: string, count: boolean): number =>
    numberField(table.value(row, field), field, name, () => table.line(row), count);
  const offsets: number[] = [];
  const inputs: number[] = [];
  const outputs: number[] = [];
  let firstMs = Number.NaN;
  let previousMs = Number.NEGATIVE_INFINITY;
  for (let row = 0; row < table.count; row++) {
    const ms = read(row, fields.timestamp, false) * msPer;
    if (ms < previousMs)
      throw new InferbenchError(
        'BAD_PROFILE',
        `${name}:${table.line(row)}: ${fields.timestamp}: ${ms / msPer} is earlier than the previous record's (line ${table.line(row - 1)}); records must be in time order`,
        { hint: 'sort the trace by timestamp first (e.g. sort -n, or jq -s "sort_by(.timestamp)[]" -c)' },
      );
    previousMs = ms;
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

/** A file's records (JSONL objects or CSV rows), by index: a field's value, the fields, the line. */
interface Table {
  readonly count: number;
  value(row: number, field: string): unknown;
  columns(row: number): readonly string[];
  /** 1-based line of the record in the file (for messages). */
  line(row: number): number;
}

/** JSONL objects, or CSV rows keyed by the header when the first line is not a JSON object. */
function readRows(text: string, name: string): Table {
  const lines = text.split(/\r?\n/);
  const firstIndex = lines.findIndex((line) => line.trim() !== '');
  if (firstIndex >= 0 && !lines[firstIndex]!.trimStart().startsWith('{')) return readCsv(text, name);
  const rows: Record<string, unknown>[] = [];
  const lineOf: number[] = [];
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
    rows.push(value as Record<string, unknown>);
    lineOf.push(i + 1);
  });
  return {
    count: rows.length,
    value: (row, field) => rows[row]?.[field],
    columns: (row) => Object.keys(rows[row] ?? {}),
    line: (row) => lineOf[row] ?? 0,
  };
}

/**
 * CSV with a header row, read by csv-parse (quoted cells, "" escapes, CRLF). Rows are cell arrays read
 * through the header's column index. csv-parse's per-record line info costs about as much again as the
 * parse (BurstGPT has 1.4 M lines), and only a message needs a line: the text is parsed again with it
 * then, which happens at most once, on the way to an error.
 */
function readCsv(text: string, name: string): Table {
  const records = parseCsv(text, name);
  const header = records[0] ?? [];
  const index = new Map(header.map((column, c) => [column, c]));
  let lines: number[] | null = null;
  const line = (record: number): number => {
    lines ??= parseCsvLines(text, name);
    return lines[record] ?? 0;
  };
  for (let r = 1; r < records.length; r++) {
    const record = records[r]!;
    if (record.length !== header.length)
      throw new InferbenchError(
        'BAD_PROFILE',
        `${name}:${line(r)}: ${record.length} columns where the header (line ${line(0)}) has ${header.length}`,
        { hint: HINT },
      );
  }
  return {
    count: Math.max(0, records.length - 1),
    value: (row, field) => {
      const c = index.get(field);
      return c === undefined ? undefined : records[row + 1]?.[c];
    },
    columns: () => header,
    line: (row) => line(row + 1),
  };
}

const CSV_OPTIONS = { skip_empty_lines: true, trim: true, relax_column_count: true } as const;

/** A line of only spaces is skipped as an empty one is (csv-parse gives it as one empty cell). */
const blank = (record: readonly string[]): boolean => record.length === 1 && record[0] === '';

/** The records of CSV text (column counts are checked by the caller, where the message can name the header's line). */
function parseCsv(text: string, name: string): string[][] {
  return csvParse(name, () => (parse(text, CSV_OPTIONS) as string[][]).filter((record) => !blank(record)));
}

/** The line of each record of parseCsv, by a second parse with csv-parse's line info. */
function parseCsvLines(text: string, name: string): number[] {
  return csvParse(name, () =>
    (parse(text, { ...CSV_OPTIONS, info: true }) as unknown as CsvRecord[])
      .filter((entry) => !blank(entry.record))
      .map((entry) => entry.info.lines),
  );
}

/** Runs a csv-parse call; its error becomes a BAD_PROFILE error naming the file and line. */
function csvParse<T>(name: string, run: () => T): T {
  try {
    return run();
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

function detectFormat(table: Table, name: string, extension: string): TraceFormat {
  const columns = table.columns(0);
  for (const format of TRACE_FORMATS) if (columns.includes(FIELDS[format].input)) return format;
  const csv = extension.toLowerCase() === '.csv' ? ' header' : '';
  throw new InferbenchError(
    'BAD_PROFILE',
    `${name}:${table.line(0)}: the first record${csv} has none of input_tokens, input_length, "Request tokens": cannot tell the trace's format`,
    { hint: `${HINT}; or set load.format` },
  );
}

/** A finite number (JSON number or numeric CSV cell); token counts must be whole and >= 0. */
function numberField(raw: unknown, field: string, name: string, line: () => number, count: boolean): number {
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw !== '' ? Number(raw) : Number.NaN;
  if (count ? Number.isInteger(value) && value >= 0 && value <= 0xffffffff : Number.isFinite(value)) return value;
  const at = `${name}:${line()}: ${field}`;
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
