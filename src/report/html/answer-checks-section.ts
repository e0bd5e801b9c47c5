/**
 * The report's "Answer checks" section: per group and check (tool_arguments, json_schema), how many
 * answers passed and failed, the pass rate and a few failure messages (summary.json `groups[].checks`).
 * Absent when no answer was checked.
 */
import type { GroupSummary } from '../../metrics/run-summary.js';
import type { Block, Cell, Section } from './document-model.js';
import { fmt } from './document-model.js';

const COLUMNS = ['group', 'check', 'passed', 'failed', 'pass rate'];

/** The section, or null when no group has checks. */
export function answerChecksSection(groups: readonly GroupSummary[]): Section | null {
  const rows: Cell[][] = [];
  const samples: Cell[] = [];
  for (const group of groups) {
    for (const [name, stats] of Object.entries(group.checks ?? {})) {
      if (stats === undefined) continue;
      rows.push([
        group.key,
        name,
        String(stats.passed),
        stats.failed > 0 ? { text: String(stats.failed), tone: 'bad' } : '0',
        { text: `${fmt(stats.pass_rate * 100, 1)} %`, tone: stats.failed > 0 ? 'bad' : 'ok' },
      ]);
      for (const message of stats.samples) samples.push(`${group.key} ${name}: ${message}`);
    }
  }
  if (rows.length === 0) return null;
  return {
    id: 'checks',
    title: 'Answer checks',
    blocks: [
      {
        kind: 'paragraph',
        tone: 'muted',
        text: "Answers of the ok requests checked against the request: tool_arguments = every tool call's arguments parse and validate against the named tool's parameters schema; json_schema = the content parses and validates against response_format's schema (json_object: parses to an object). A failed check does not fail the request.",
      },
      { kind: 'table', columns: COLUMNS, rows, numericFrom: 2 },
      ...(samples.length > 0 ? [{ kind: 'list', items: samples } satisfies Block] : []),
    ],
  };
}
