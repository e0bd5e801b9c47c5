/**
 * `load: { mode: trace, ... }` -> the resolved open-loop LoadSpec that replays a trace: the trace spec
 * (path against the profile's folder, start in ms) plus max_concurrency, and as `rate` the trace's mean
 * rate as replayed (records / scaled span), which the plan, the cost estimate and the progress line read.
 * Reads the trace (trace-file.ts caches it); the cross-field checks have already parsed it.
 */
import { resolve } from 'node:path';
import { parseDurationMs } from '../util/duration.js';
import type { ScenarioFieldsInput } from './profile-schema.js';
import type { LoadSpec, TraceSpec } from './resolved-profile.js';
import { loadTrace, traceSpanMs } from './sections/trace/trace-file.js';

/** max_concurrency of a trace replay when the profile sets none (as for mode: rate). */
const TRACE_MAX_CONCURRENCY = 1000;

export function resolveTraceLoad(load: NonNullable<ScenarioFieldsInput['load']>, baseDir: string): LoadSpec {
  const trace: TraceSpec = {
    path: resolve(baseDir, load.path ?? ''),
    format: load.format ?? 'auto',
    timestampUnit: load.timestamp_unit ?? null,
    timeScale: load.time_scale ?? 1,
    startMs: load.start === undefined ? 0 : (parseDurationMs(load.start) as number),
  };
  const records = loadTrace(trace);
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
