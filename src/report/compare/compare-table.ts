/**
 * The terminal table of `inferbench compare`: the two runs and their targets side by side, one line per
 * group x metric, the server side of both runs when either scraped it (context, no verdict), a verdict
 * line at the end.
 */
import type { CompareResult, MetricComparison } from './compare-runs.js';
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
} from './format-values.js';
import { targetLabel } from './target-label.js';
import type { ServerComparison } from './compare-server.js';

/** Renders the comparison for a terminal (plain text, aligned columns). */
export function formatCompareTable(result: CompareResult): string {
  const header = ['group', 'metric', 'baseline', 'candidate', 'change', pHeader(result), 'tolerance', 'verdict'];
  const rows = result.comparisons.map((c) => [
    groupLabel(c),
    c.metricId,
    formatValue(c.baseline, c.unit),
    formatValue(c.candidate, c.unit),
    formatChange(c),
    formatPValue(c.pAdjusted),
    c.tolerance,
    VERDICT_TEXT[c.verdict],
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => (i >= 2 && i <= 5 ? cell.padStart(widths[i] as number) : cell.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  const out = [
    ...runLines(result),
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    ...(result.server === undefined ? [] : ['', ...serverLines(result.server)]),
    '',
    verdictLine(result),
  ];
  return `${out.join('\n')}\n`;
}

/** The server side: its title, what each run scraped, then one aligned line per group x concept. */
function serverLines(server: ServerComparison): string[] {
  const header = [...SERVER_COLUMNS];
  const rows = serverRows(server);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => (i >= 2 ? cell.padStart(widths[i] as number) : cell.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  const table = rows.length === 0 ? [] : [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  return [`${SERVER_SECTION_TITLE}:`, ...serverPreamble(server).map((l) => `  ${l}`), ...table];
}

/** The two runs side by side: run id, target, directory; then the group pairs, if any. */
function runLines(result: CompareResult): string[] {
  const runs = [
    ['', 'run', 'target', 'directory'],
    ['baseline', result.baseline.runId, targetLabel(result.baseline.target), result.baseline.dir],
    ['candidate', result.candidate.runId, targetLabel(result.candidate.target), result.candidate.dir],
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...runs.map((r) => (r[i] as string).length)));
  const out = runs.map((r) =>
    r
      .map((cell, i) => (i < 3 ? cell.padEnd(widths[i] as number) : cell))
      .join('  ')
      .trimEnd(),
  );
  if (!result.sameTarget) out.push('targets differ: this compares two deployments');
  for (const pair of result.pairs) out.push(`paired: ${pair.baseline} (baseline) with ${pair.candidate} (candidate)`);
  return out;
}

/** The p column's name: the p-values shown are the adjusted ones. */
export function pHeader(result: CompareResult): string {
  return result.correction === 'holm' ? 'p (Holm)' : 'p';
}

/** The one-line verdict. */
export function verdictLine(result: CompareResult): string {
  const named = (verdict: MetricComparison['verdict']): string =>
    result.comparisons
      .filter((c) => c.verdict === verdict)
      .map((c) => `${c.group} ${c.metricId}`)
      .join(', ');
  if (result.regressions === 0 && result.notCalled > 0)
    return `NOT CALLED: ${result.notCalled} regression(s) at alpha ${result.alpha} (${named('not_called')}) the candidate's own client may explain: it is not valid evidence: ${result.candidateInvalid.join('; ')}`;
  if (result.regressions > 0) {
    const notCalled = result.notCalled > 0 ? `; ${result.notCalled} more not called (${named('not_called')})` : '';
    return `FAIL: ${result.regressions} regression(s) beyond tolerance at alpha ${result.alpha}${result.correction === 'holm' ? ' (Holm)' : ''}: ${named('regression')}${notCalled}`;
  }
  return `PASS: no significant regression beyond tolerance (${result.comparisons.length} checks, alpha ${result.alpha}${result.correction === 'holm' ? ' (Holm)' : ''})`;
}
