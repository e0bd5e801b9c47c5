/** How `validate` and the run header describe a trace replay's load (format-plan.ts). */
import { formatDurationMs } from '../util/duration.js';
import type { TraceSpec } from './sections/trace/trace-file.js';
import { loadTrace, traceSpanMs } from './sections/trace/trace-file.js';

/** e.g. "trace replay of traces/x.jsonl (mooncake, ms): 300 records over 15s, x1.5 -> 10s (30.0 requests/s), ...". */
export function formatTraceLoad(trace: TraceSpec, maxConcurrency: number): string {
  const records = loadTrace(trace);
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
  const records = loadTrace(trace);
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
