/**
 * The cross-field rules of trace replay (`load: { mode: trace }`): the trace keys belong to that mode only;
 * a trace sets each request's arrival and lengths, so the keys that would set them otherwise (rate,
 * stages, prompt lengths, datasets, sessions, warmup) are errors beside it; and the trace file itself is
 * read and checked here, so `validate` names its bad line (file:line: field: what).
 */
import { resolve } from 'node:path';
import { InferbenchError } from '../../../errors.js';
import { parseDurationMs } from '../../../util/duration.js';
import type { IssuePath, ProfileIssue } from '../../profile-issue.js';
import { loadTrace, TRACE_FORMATS } from './trace-file.js';
import type { TraceFormat, TimestampUnit } from './trace-file.js';

const TRACE_KEYS = ['path', 'format', 'timestamp_unit', 'time_scale', 'start'];
/** load keys that set what the trace sets (arrivals), or a closed loop. */
const NOT_WITH_TRACE_LOAD = ['rate', 'arrival', 'burstiness', 'concurrency', 'stages', 'steps'];
/** Scenario keys a trace replay cannot honour: lengths come from the trace, one request per record. */
const NOT_WITH_TRACE_SCENARIO: readonly [string, ...string[]][] = [
  ['warmup'],
  ['warmup_requests'],
  ['session'],
  ['tool_loop'],
  ['mix'],
  ['prompt', 'input_tokens'],
  ['prompt', 'output_tokens'],
  ['prompt', 'dataset'],
  ['prompt', 'shared_prefix_tokens'],
  ['prompt', 'prefixes'],
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Issues of a scenario's trace settings. `fields` is the scenario merged over defaults, `pathOf` places a
 * field where it was written.
 */
export function checkTraceScenario(
  fields: Readonly<Record<string, unknown>>,
  pathOf: (key: string, ...rest: (string | number)[]) => IssuePath,
  baseDir: string,
): ProfileIssue[] {
  const load = isRecord(fields.load) ? fields.load : {};
  const issues: ProfileIssue[] = [];
  if (load.mode !== 'trace') {
    for (const key of TRACE_KEYS)
      if (load[key] !== undefined)
        issues.push({ path: pathOf('load', key), atKey: true, message: 'applies to mode: trace only' });
    return issues;
  }
  for (const key of NOT_WITH_TRACE_LOAD)
    if (load[key] !== undefined)
      issues.push({
        path: pathOf('load', key),
        atKey: true,
        message: 'does not apply to mode: trace (the trace gives the arrival times)',
      });
  for (const [key, ...rest] of NOT_WITH_TRACE_SCENARIO) {
    const value = rest.length === 0 ? fields[key] : isRecord(fields[key]) ? fields[key][rest[0]!] : undefined;
    if (value !== undefined)
      issues.push({
        path: pathOf(key, ...rest),
        atKey: true,
        message: `does not apply to a scenario with load mode: trace (${traceReason(key)})`,
      });
  }
  if (typeof load.path !== 'string') {
    issues.push({ path: pathOf('load'), message: 'mode trace needs path (the trace file)' });
    return issues;
  }
  const file = checkTraceFile(load, baseDir);
  if (file !== null) issues.push({ path: pathOf('load', 'path'), message: file });
  return issues;
}

function traceReason(key: string): string {
  if (key === 'warmup' || key === 'warmup_requests')
    return 'a trace has no warmup: use load.start to skip its beginning';
  if (key === 'prompt') return "each record sets its request's input and output tokens";
  return 'each record is one request';
}

/** Reads the trace as the run will: null when it is good, else what is wrong (with file:line). */
function checkTraceFile(load: Record<string, unknown>, baseDir: string): string | null {
  const start = load.start ?? 0;
  const startMs = typeof start === 'string' || typeof start === 'number' ? parseDurationMs(start) : undefined;
  const format = load.format ?? 'auto';
  const unit = load.timestamp_unit ?? null;
  // A bad start, format or unit is the schema's issue; the file is read only with settings that are valid.
  if (startMs === undefined || startMs < 0) return null;
  if (format !== 'auto' && !(TRACE_FORMATS as readonly unknown[]).includes(format)) return null;
  if (unit !== null && unit !== 'ms' && unit !== 's') return null;
  try {
    const records = loadTrace({
      path: resolve(baseDir, load.path as string),
      format: format as TraceFormat | 'auto',
      timestampUnit: unit as TimestampUnit | null,
      timeScale: 1,
      startMs,
    });
    return records.count === 0 ? `the trace has no records at or after start (${String(load.start)})` : null;
  } catch (error) {
    if (error instanceof InferbenchError) return error.message;
    throw error;
  }
}
