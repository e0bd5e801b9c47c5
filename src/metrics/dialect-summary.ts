/**
 * summary.json `groups[].dialects`: a group's TTFT, ITL, TPOT, E2E and throughputs as other benchmark tools
 * define them (aggregate/dialects/, docs/dialects.md), computed from the same requests as the group's own
 * metrics. The names and rows are declared once here; the shape is declared with summary.json's schema
 * (run-summary.ts), which worker threads do not load.
 */
import type { MetricName } from './metric-registry.js';
import type { DialectSummary } from './run-summary.js';

export type { DialectStats, DialectSummary } from './run-summary.js';

/** The tools whose definitions inferbench reproduces, by the name `report --dialect` takes. */
export const DIALECT_NAMES = ['vllm', 'aiperf', 'guidellm', 'llmperf'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

/**
 * The rows of a dialect table, in order: one concept each, whatever the tools call it. Each tool fills the
 * rows whose concept it reports, under its own name for the metric (`DialectStats.name`): AIPerf's "Inter
 * Token Latency" is per request (latency - TTFT) / (tokens - 1), so it is in `tpot_ms`; its "Inter Chunk
 * Latency" (the pooled chunk gaps) is in `itl_ms` (docs/dialects.md).
 */
export const DIALECT_ROWS = [
  'ttft_ms',
  'itl_ms',
  'tpot_ms',
  'tpot_with_ttft_ms',
  'e2e_ms',
  'request_output_tokens_per_s',
] as const;
export type DialectRow = (typeof DIALECT_ROWS)[number];

/** What a row measures, its unit, and inferbench's own metric of that concept (summary.json `metrics`), if any. */
export interface DialectRowInfo {
  readonly concept: string;
  readonly unit: 'ms' | 'tok/s';
  readonly own: MetricName | null;
}

export const DIALECT_ROW_INFO = {
  ttft_ms: { concept: 'start -> first token (or first event)', unit: 'ms', own: 'ttft_ms' },
  itl_ms: { concept: 'gaps between consecutive chunks, pooled', unit: 'ms', own: 'itl_ms' },
  tpot_ms: { concept: '(latency - TTFT) / (tokens - 1) per request', unit: 'ms', own: 'tpot_ms' },
  tpot_with_ttft_ms: {
    concept: 'time to the last token / tokens (or chunks) per request, TTFT included',
    unit: 'ms',
    own: null,
  },
  e2e_ms: { concept: 'request latency', unit: 'ms', own: 'e2e_ms' },
  request_output_tokens_per_s: { concept: 'output tokens / latency per request', unit: 'tok/s', own: null },
} as const satisfies Record<DialectRow, DialectRowInfo>;

export type GroupDialects = Partial<Record<DialectName, DialectSummary>>;

export function isDialectName(name: string): name is DialectName {
  return (DIALECT_NAMES as readonly string[]).includes(name);
}
