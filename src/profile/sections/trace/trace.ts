/**
 * Trace replay (`load: { mode: trace, path, ... }`), the section: the keys `load` takes for it (spread into
 * profile-schema.ts's load object); the cross-field rules (the trace keys belong to that mode only; a trace
 * sets each request's arrival and lengths, so the keys that would set them otherwise, rate, stages, prompt
 * lengths, datasets, sessions, warmup, are errors beside it; the trace file itself is read and checked, so
 * `validate` names its bad line, file:line: field: what); the resolved open-loop LoadSpec, which carries the
 * records read (trace-file.ts); and how `validate` describes it.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { InferbenchError } from '../../../errors.js';
import { formatDurationMs, parseDurationMs } from '../../../util/duration.js';
import { DURATION_PATTERN } from '../../field-kinds.js';
import type { IssuePath, ProfileIssue } from '../../profile-issue.js';
import type { LoadSpec, ResolvedProfile, TimestampUnit, TraceFormat, TraceSpec } from '../../resolved-profile.js';
import { TRACE_FORMATS, type TraceReader, traceSpanMs } from './trace-file.js';

// ---- schema

const traceStart = z
  .union([
    z.string().regex(new RegExp(DURATION_PATTERN), { error: 'expected a duration like "30s" or "2m"' }),
    z.number().min(0),
  ])
  .meta({ description: 'Trace replay: skip the trace before this time (from its first record); default 0s.' });

/** `load` keys of `mode: trace`. */
export const traceLoadFields = {
  path: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Trace replay: the trace file (JSONL or CSV), relative to the profile.' }),
  format: z
    .enum(['auto', ...TRACE_FORMATS])
    .optional()
    .meta({ description: 'Trace replay: inferbench | mooncake | burstgpt; default auto (from the first record).' }),
  timestamp_unit: z
    .enum(['ms', 's'])
    .optional()
    .meta({ description: "Trace replay: unit of the timestamps; default the format's (ms; s for burstgpt)." }),
  time_scale: z
    .number()
    .positive()
    .optional()
    .meta({ description: 'Trace replay speed: 2 replays twice as fast, 0.5 at half speed; default 1.' }),
  start: traceStart.optional(),
};

// ---- checks

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
  traces: TraceReader,
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
  const file = checkTraceFile(load, baseDir, traces);
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
function checkTraceFile(load: Record<string, unknown>, baseDir: string, traces: TraceReader): string | null {
  const start = load.start ?? 0;
  const startMs = typeof start === 'string' || typeof start === 'number' ? parseDurationMs(start) : undefined;
  const format = load.format ?? 'auto';
  const unit = load.timestamp_unit ?? null;
  // A bad start, format or unit is the schema's issue; the file is read only with settings that are valid.
  if (startMs === undefined || startMs < 0) return null;
  if (format !== 'auto' && !(TRACE_FORMATS as readonly unknown[]).includes(format)) return null;
  if (unit !== null && unit !== 'ms' && unit !== 's') return null;
  try {
    const records = traces({
      path: resolve(baseDir, load.path as string),
      format: format as TraceFormat | 'auto',
      timestampUnit: unit as TimestampUnit | null,
      startMs,
    });
    return records.count === 0 ? `the trace has no records at or after start (${String(load.start)})` : null;
  } catch (error) {
    if (error instanceof InferbenchError) return error.message;
    throw error;
  }
}

// ---- resolution

/** max_concurrency of a trace replay when the profile sets none (as for mode: rate). */
const TRACE_MAX_CONCURRENCY = 1000;

/** The `load` keys of a trace replay as validated (with max_concurrency, which every open loop has). */
type TraceLoadInput = { readonly [K in keyof typeof traceLoadFields]?: z.infer<(typeof traceLoadFields)[K]> } & {
  readonly max_concurrency?: number;
};

/**
 * `load: { mode: trace, ... }` -> the open-loop LoadSpec that replays a trace: the trace spec (path against
 * the profile's folder, start in ms) with its records (read by `traces`, which the checks already read them
 * with), plus max_concurrency, and as `rate` the trace's mean rate as replayed (records / scaled span), which
 * the plan, the cost estimate and the progress line read.
 */
export function resolveTraceLoad(load: TraceLoadInput, baseDir: string, traces: TraceReader): LoadSpec {
  const source = {
    path: resolve(baseDir, load.path ?? ''),
    format: load.format ?? 'auto',
    timestampUnit: load.timestamp_unit ?? null,
    startMs: load.start === undefined ? 0 : (parseDurationMs(load.start) as number),
  };
  const records = traces(source);
  const trace: TraceSpec = { ...source, timeScale: load.time_scale ?? 1, records };
  const spanMs = traceSpanMs(records) / trace.timeScale;
  return {
    mode: 'rate',
    rate: spanMs > 0 ? (records.count * 1000) / spanMs : records.count,
    arrival: 'constant',
    burstiness: 1,
    maxConcurrency: load.max_concurrency ?? TRACE_MAX_CONCURRENCY,
    stages: null,
    trace,
  };
}

// ---- validate

/** e.g. "trace replay of traces/x.jsonl (mooncake, ms): 300 records over 15s, x1.5 -> 10s (30.0 requests/s), ...". */
export function formatTraceLoad(trace: TraceSpec, maxConcurrency: number): string {
  const records = trace.records;
  const spanMs = traceSpanMs(records);
  const replayedMs = spanMs / trace.timeScale;
  const rate = replayedMs > 0 ? ((records.count * 1000) / replayedMs).toFixed(1) : '-';
  const start = trace.startMs > 0 ? ` from ${formatDurationMs(trace.startMs)}` : '';
  const shard = trace.shard
    ? `, shard ${trace.shard.index}/${trace.shard.count} (every ${trace.shard.count} records)`
    : '';
  return `trace replay of ${trace.path} (${records.format}, timestamps in ${records.timestampUnit})${start}: ${records.count} records over ${formatDurationMs(spanMs)}, x${trace.timeScale} -> ${formatDurationMs(replayedMs)} (${rate} requests/s on average)${shard}, at most ${maxConcurrency} in flight (more are dropped)`;
}

/** e.g. "each record's lengths: input 16..3000 tokens (user message), output 4..400 (max_completion_tokens)". */
export function formatTracePrompt(trace: TraceSpec, system: string | null): string {
  const records = trace.records;
  const range = (values: Uint32Array): string => {
    let min = Number.POSITIVE_INFINITY;
    let max = 0;
    for (const value of values) {
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
    return values.length === 0 ? '-' : `${Math.max(1, min)}..${Math.max(1, max)}`;
  };
  const parts = [
    `each record's lengths: input ${range(records.inputTokens)} tokens (user message)`,
    `output ${range(records.outputTokens)} tokens (max_completion_tokens)`,
  ];
  if (system !== null) parts.push(`system prompt of ${system.length} characters on top`);
  return parts.join('; ');
}

/**
 * The profile as summary.json and `validate --json` record it: each trace replay's spec without its
 * records (its path, format and start say what was replayed, the workload hash its content; the records
 * would be megabytes).
 */
export function recordedProfile(profile: ResolvedProfile): unknown {
  if (!profile.scenarios.some((scenario) => scenario.load.mode === 'rate' && scenario.load.trace !== undefined))
    return profile;
  return {
    ...profile,
    scenarios: profile.scenarios.map((scenario) => {
      if (scenario.load.mode !== 'rate' || scenario.load.trace === undefined) return scenario;
      const { records: _records, ...trace } = scenario.load.trace;
      return { ...scenario, load: { ...scenario.load, trace } };
    }),
  };
}
