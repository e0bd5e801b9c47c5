/** The terminal table of `inferbench compare`: one line per group x metric, a verdict line at the end. */
import type { CompareResult } from './compare-runs.js';
import { formatChange, formatPValue, formatValue, VERDICT_TEXT } from './format-values.js';

/** Renders the comparison for a terminal (plain text, aligned columns). */
export function formatCompareTable(result: CompareResult): string {
  const header = ['group', 'metric', 'baseline', 'candidate', 'change', pHeader(result), 'tolerance', 'verdict'];
  const rows = result.comparisons.map((c) => [
    c.group,
    c.metricId,
    formatValue(c.baseline, c.unit),
    formatValue(c.candidate, c.unit),
    formatChange(c),
    formatPValue(c.pAdjusted),
    c.tolerance,
    VERDICT_TEXT[c.verdict],
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]): string => cells.map((cell, i) => (i >= 2 && i <= 5 ? cell.padStart(widths[i] as number) : cell.padEnd(widths[i] as number))).join('  ').trimEnd();
  const out = [
    `baseline  ${result.baseline.runId} (${result.baseline.dir})`,
    `candidate ${result.candidate.runId} (${result.candidate.dir})`,
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    verdictLine(result),
  ];
  return `${out.join('\n')}\n`;
}

/** The p column's name: the p-values shown are the adjusted ones. */
export function pHeader(result: CompareResult): string {
  return result.correction === 'holm' ? 'p (Holm)' : 'p';
}

/** The one-line verdict. */
export function verdictLine(result: CompareResult): string {
  if (result.regressions > 0) {
    const names = result.comparisons.filter((c) => c.verdict === 'regression').map((c) => `${c.group} ${c.metricId}`);
    return `FAIL: ${result.regressions} regression(s) beyond tolerance at alpha ${result.alpha}${result.correction === 'holm' ? ' (Holm)' : ''}: ${names.join(', ')}`;
  }
  return `PASS: no significant regression beyond tolerance (${result.comparisons.length} checks, alpha ${result.alpha}${result.correction === 'holm' ? ' (Holm)' : ''})`;
}
