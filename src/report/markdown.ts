/**
 * The markdown of a comparison: a verdict line, the two runs and their targets side by side, one
 * table row per group x metric, and the server side of both runs when either scraped, for `--markdown FILE`
 * and GitHub's $GITHUB_STEP_SUMMARY. Cells are escaped: GitHub renders inline HTML, so `<`, `>`, `&`,
 * `|` and newlines from model names or profile strings are neutralised.
 */
import type { CompareResult } from './compare/compare-runs.js';
import { pHeader, verdictLine } from './compare/compare-table.js';
import {
  formatChange,
  formatPValue,
  formatValue,
  groupLabel,
  SERVER_COLUMNS,
  SERVER_SECTION_TITLE,
  serverPreamble,
  serverRows,
  VERDICT_TEXT,
} from './compare/format-values.js';
import { targetLabel } from './compare/target-label.js';
import type { ServerComparison } from './compare/compare-server.js';

/** Escapes text for one markdown table cell. */
export function escapeMarkdownCell(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[`*_[\]]/g, (c) => `\\${c}`)
    .replace(/\r?\n|\r/g, ' ');
}

/** The comparison as GitHub-flavoured markdown. */
export function formatCompareMarkdown(result: CompareResult): string {
  const e = escapeMarkdownCell;
  const lines = [
    `### inferbench compare: ${result.regressions > 0 ? `❌ ${result.regressions} regression(s)` : '✅ no regression'}`,
    '',
    `Baseline \`${e(result.baseline.runId)}\` vs candidate \`${e(result.candidate.runId)}\` (profile ${e(result.candidate.profile)}); significance level ${result.alpha}.`,
    '',
    '| | baseline | candidate |',
    '|---|---|---|',
    `| run | ${e(result.baseline.runId)} | ${e(result.candidate.runId)} |`,
    `| target${result.sameTarget ? '' : ' (two deployments)'} | ${e(targetLabel(result.baseline.target))} | ${e(targetLabel(result.candidate.target))} |`,
    ...result.pairs.map((p) => `| paired group | ${e(p.baseline)} | ${e(p.candidate)} |`),
    '',
  ];
  if (result.mismatches.length > 0) {
    lines.push(
      `> **Warning:** compared with --force although the workloads differ: ${e(result.mismatches.join('; '))}`,
      '',
    );
  }
  for (const warning of result.warnings) lines.push(`> **Note:** ${e(warning)}`, '');
  lines.push(
    `| group | metric | baseline | candidate | change | ${pHeader(result)} | tolerance | verdict |`,
    '|---|---|---:|---:|---:|---:|---:|---|',
  );
  for (const c of result.comparisons) {
    const verdict = c.verdict === 'regression' ? '**REGRESSION**' : e(VERDICT_TEXT[c.verdict]);
    lines.push(
      `| ${e(groupLabel(c))} | ${e(c.metricId)} | ${e(formatValue(c.baseline, c.unit))} | ${e(formatValue(c.candidate, c.unit))} | ${e(formatChange(c))} | ${e(formatPValue(c.pAdjusted))} | ${e(c.tolerance)} | ${verdict} |`,
    );
  }
  if (result.server !== undefined) lines.push('', ...serverMarkdown(result.server));
  lines.push('', e(verdictLine(result)), '');
  return lines.join('\n');
}

/** The server side of both runs: a heading, what each scraped, the table (context: no verdict column). */
function serverMarkdown(server: ServerComparison): string[] {
  const e = escapeMarkdownCell;
  const rows = serverRows(server);
  return [
    `#### ${e(SERVER_SECTION_TITLE)}`,
    '',
    ...serverPreamble(server).map((line) => `- ${e(line)}`),
    ...(rows.length === 0
      ? []
      : [
          '',
          `| ${SERVER_COLUMNS.join(' | ')} |`,
          '|---|---|---:|---:|---:|',
          ...rows.map((cells) => `| ${cells.map(e).join(' | ')} |`),
        ]),
  ];
}
