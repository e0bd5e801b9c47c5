/**
 * The report's "Per-label breakdowns" section: per group, one table per request label (`prefix`, `turn`,
 * `tool_round`, ...) with a row per value: requests, outcome, TTFT and E2E percentiles, tokens and the
 * prompt-cache hit ratio (summary.json `groups[].breakdowns`). Absent when no request had labels.
 */
import type { GroupSummary } from '../../metrics/run-summary.js';
import type { Block, Cell, Section } from './document-model.js';
import { fmt } from './document-model.js';

const COLUMNS = [
  'value',
  'requests',
  'ok',
  'failed',
  'TTFT p50 (ms)',
  'TTFT p99 (ms)',
  'E2E p50 (ms)',
  'E2E p99 (ms)',
  'input tokens',
  'cached tokens',
  'output tokens',
  'cache hit ratio',
];

/** The section, or null when no group has breakdowns. */
export function labelBreakdownsSection(groups: readonly GroupSummary[]): Section | null {
  const blocks: Block[] = [];
  for (const group of groups) {
    const breakdowns = group.breakdowns;
    if (breakdowns === undefined) continue;
    blocks.push({ kind: 'heading', text: group.key });
    for (const [label, values] of Object.entries(breakdowns)) {
      const rows: Cell[][] = Object.entries(values).map(([value, cell]) => [
        value,
        String(cell.requests),
        String(cell.ok),
        cell.failed > 0 ? { text: String(cell.failed), tone: 'bad' } : '0',
        fmt(cell.ok > 0 ? cell.ttft_ms.p50 : null),
        fmt(cell.ok > 0 ? cell.ttft_ms.p99 : null),
        fmt(cell.ok > 0 ? cell.e2e_ms.p50 : null),
        fmt(cell.ok > 0 ? cell.e2e_ms.p99 : null),
        String(cell.input_tokens),
        String(cell.cached_tokens),
        String(cell.output_tokens),
        cell.cache_hit_ratio === null ? '–' : `${fmt(cell.cache_hit_ratio * 100, 1)} %`,
      ]);
      blocks.push({ kind: 'table', caption: `by ${label}`, columns: COLUMNS, rows, numericFrom: 1 });
    }
    const overflow = Object.entries(group.breakdowns_overflow ?? {});
    if (overflow.length > 0)
      blocks.push({
        kind: 'paragraph',
        tone: 'warn',
        text: `Too many values: ${overflow.map(([label, n]) => `${n} request(s) of label ${label}`).join(', ')} counted under "other".`,
      });
  }
  if (blocks.length === 0) return null;
  return {
    id: 'labels',
    title: 'Per-label breakdowns',
    blocks: [
      {
        kind: 'paragraph',
        tone: 'muted',
        text: 'Requests counted apart per request label (prefix group, session turn, tool round); latencies of the ok requests, tokens summed over them, cache hit ratio = cached / input tokens.',
      },
      ...blocks,
    ],
  };
}
