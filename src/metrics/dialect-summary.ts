/**
 * summary.json `groups[].dialects`: a group's TTFT, ITL, TPOT, E2E and throughputs as other benchmark tools
 * define them (aggregate/dialects/, docs/dialects.md), computed from the same requests as the group's own
 * metrics. The names and rows are declared once here; the shape is declared with summary.json's schema
 * (run-summary.ts), which worker threads do not load.
 */
import type { DialectSummary } from './run-summary.js';

export type { DialectStats, DialectSummary } from './run-summary.js';

/** The tools whose definitions inferbench reproduces, by the name `report --dialect` takes. */
export const DIALECT_NAMES = ['vllm', 'aiperf', 'guidellm', 'llmperf'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

/**
 * The rows of a dialect table, in order. Each tool fills the rows it reports, under its own name for the
 * metric (`DialectStats.name`): the same row holds what each tool calls by that concept.
 */
export const DIALECT_ROWS = [
  'ttft_ms',
  'itl_ms',
  'tpot_ms',
  'e2e_ms',
  'chunk_gap_ms',
  'request_output_tokens_per_s',
] as const;
export type DialectRow = (typeof DIALECT_ROWS)[number];

export type GroupDialects = Partial<Record<DialectName, DialectSummary>>;

export function isDialectName(name: string): name is DialectName {
  return (DIALECT_NAMES as readonly string[]).includes(name);
}
