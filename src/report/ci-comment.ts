/**
 * The CI verdict of a run (and its comparison with a baseline) and the pull-request comment that states it
 * (`comment.md` of the GitHub Action, action.yml): a verdict table (validity, thresholds, comparison: what
 * happened and whether it fails CI under `fail-on`), the regressions with their p-values, the failed
 * thresholds and where the artifacts are. Pure: the CLI gathers the findings and writes the file.
 */
import type { RunSummary, ThresholdResult } from '../metrics/run-summary.js';
import type { CompareResult, MetricComparison } from './compare/compare-runs.js';
import { pHeader } from './compare/compare-table.js';
import { formatChange, formatPValue, formatValue, groupLabel } from './compare/format-values.js';
import { escapeMarkdownCell } from './markdown.js';

/**
 * What may fail CI, in the order a verdict names them. A regression first: compare calls one only when the
 * candidate's own client cannot explain it (it is real even from a run that is not valid evidence). Then
 * invalid evidence, which voids the thresholds (they judged a load that was not the one stated), as `run
 * --fail-on invalid` puts exit 5 before 99.
 */
export const CI_FAILURES = ['regression', 'invalid', 'threshold'] as const;
export type CiFailure = (typeof CI_FAILURES)[number];
export type CiVerdict = 'pass' | CiFailure | 'error';

/** The marker a posting step can look for to update its earlier comment instead of adding one. */
export const CI_COMMENT_MARKER = '<!-- inferbench-ci-comment -->';

export interface CiFindings {
  /** The run's summary; null when the run wrote none (an error). */
  readonly summary: RunSummary | null;
  /** Why the run is not valid evidence (aggregate/run-validity.ts); empty when it is. */
  readonly invalid: readonly string[];
  /** The comparison with the baseline; null when there was no baseline or it failed. */
  readonly compare: CompareResult | null;
  /** The baseline asked for (as given), or null. */
  readonly baseline: string | null;
  /** What stopped the action short of a verdict (the run or the comparison could not be done), or null. */
  readonly error: { readonly step: 'run' | 'compare'; readonly exitCode: number } | null;
}

/** What happened, whatever fails CI: the failures found, in CI_FAILURES order. */
export function ciFailuresOf(findings: CiFindings): CiFailure[] {
  const found: Record<CiFailure, boolean> = {
    regression: (findings.compare?.regressions ?? 0) > 0,
    invalid: findings.invalid.length > 0,
    threshold: (findings.summary?.thresholds ?? []).some((t) => !t.passed),
  };
  return CI_FAILURES.filter((kind) => found[kind]);
}

/** `error` when the action could not judge, else the first failure found, else `pass`. */
export function ciVerdictOf(findings: CiFindings): CiVerdict {
  if (findings.error !== null) return 'error';
  return ciFailuresOf(findings)[0] ?? 'pass';
}

export interface CiArtifacts {
  /** The run folder, as the comment shows it (relative to the workspace when inside it). */
  readonly runDir: string | null;
  readonly report: string | null;
  readonly compareReport: string | null;
  /** The workflow run's page (its artifacts are listed there), when known. */
  readonly workflowRunUrl: string | null;
}

const VERDICT_HEADLINE: Record<CiVerdict, string> = {
  pass: '✅ pass',
  invalid: '⚠️ not valid evidence',
  threshold: '❌ threshold failed',
  regression: '❌ regression',
  error: '❌ error',
};

/** comment.md: the verdict, a table of what was checked, the regressions, failed thresholds and artifacts. */
export function formatCiComment(
  findings: CiFindings,
  failOn: ReadonlySet<CiFailure>,
  exitCode: number,
  artifacts: CiArtifacts,
): string {
  const e = escapeMarkdownCell;
  const verdict = ciVerdictOf(findings);
  const name = findings.summary?.profile.name;
  const failsCi = (kind: CiFailure, found: boolean): string =>
    !found ? '' : failOn.has(kind) ? '**yes**' : `no (${kind} is not in fail-on)`;
  const found = new Set(ciFailuresOf(findings));
  const lines = [
    CI_COMMENT_MARKER,
    `### inferbench${name === undefined ? '' : ` ${e(name)}`}: ${VERDICT_HEADLINE[verdict]}`,
    '',
    `Verdict \`${verdict}\`, exit code ${exitCode} (fail-on: ${[...failOn].join(', ') || 'nothing'}).`,
    '',
  ];
  if (findings.error !== null)
    lines.push(
      `The ${findings.error.step} step could not be done (exit ${findings.error.exitCode}); the job log says why.`,
      '',
    );
  if (findings.summary !== null) {
    lines.push(
      '| check | result | fails CI |',
      '|---|---|---|',
      `| baseline | ${compareCell(findings)} | ${failsCi('regression', found.has('regression'))} |`,
      `| validity | ${found.has('invalid') ? `not valid evidence: ${e(findings.invalid.join('; '))}` : 'valid evidence'} | ${failsCi('invalid', found.has('invalid'))} |`,
      `| thresholds | ${thresholdsCell(findings.summary.thresholds)} | ${failsCi('threshold', found.has('threshold'))} |`,
      '',
    );
  }
  if (findings.compare !== null) lines.push(...regressionLines(findings.compare));
  const failed = (findings.summary?.thresholds ?? []).filter((t) => !t.passed);
  if (failed.length > 0) {
    lines.push('#### Failed thresholds', '', '| threshold | group | actual |', '|---|---|---:|');
    for (const t of failed) lines.push(`| ${e(t.expression)} | ${e(t.group)} | ${e(String(t.actual ?? 'none'))} |`);
    lines.push('');
  }
  lines.push(...artifactLines(artifacts));
  return lines.join('\n');
}

function thresholdsCell(thresholds: readonly ThresholdResult[]): string {
  if (thresholds.length === 0) return 'none set';
  const failed = thresholds.filter((t) => !t.passed).length;
  return failed === 0 ? `all ${thresholds.length} passed` : `${failed} of ${thresholds.length} failed`;
}

function compareCell(findings: CiFindings): string {
  const e = escapeMarkdownCell;
  const result = findings.compare;
  if (result === null)
    return findings.baseline === null ? 'none given: not compared' : `${e(findings.baseline)}: not compared`;
  const against = `against ${e(result.baseline.runId)}`;
  if (result.regressions > 0) return `${result.regressions} regression(s) ${against}`;
  if (result.notCalled > 0)
    return `${result.notCalled} regression(s) not called (the client may explain them) ${against}`;
  return `no significant regression in ${result.comparisons.length} checks ${against}`;
}

/** The regressions (and the ones not called) with their change and adjusted p-value. */
function regressionLines(result: CompareResult): string[] {
  const e = escapeMarkdownCell;
  const shown = result.comparisons.filter((c) => c.verdict === 'regression' || c.verdict === 'not_called');
  if (shown.length === 0) return [];
  const row = (c: MetricComparison): string =>
    `| ${e(groupLabel(c))} | ${e(c.metricId)} | ${e(formatValue(c.baseline, c.unit))} | ${e(formatValue(c.candidate, c.unit))} | ${e(formatChange(c))} | ${e(formatPValue(c.pAdjusted))} | ${e(c.tolerance)} | ${c.verdict === 'regression' ? '**REGRESSION**' : 'not called (client)'} |`;
  return [
    '#### Regressions',
    '',
    `Significance level ${result.alpha}${result.correction === 'holm' ? ', p-values adjusted by Holm over all checks' : ''}.`,
    '',
    `| group | metric | baseline | candidate | change | ${pHeader(result)} | tolerance | verdict |`,
    '|---|---|---:|---:|---:|---:|---:|---|',
    ...shown.map(row),
    '',
  ];
}

/** Text as an inline code span (a path: its underscores and backslashes shown as they are). */
function code(text: string): string {
  return `\`${text.replace(/[`\r\n]/g, '')}\``;
}

function artifactLines(artifacts: CiArtifacts): string[] {
  const items = [
    artifacts.runDir === null ? null : `- run folder: ${code(artifacts.runDir)}`,
    artifacts.report === null ? null : `- report: ${code(artifacts.report)}`,
    artifacts.compareReport === null ? null : `- comparison: ${code(artifacts.compareReport)}`,
    artifacts.workflowRunUrl === null ? null : `- workflow run and its artifacts: ${artifacts.workflowRunUrl}`,
  ].filter((line): line is string => line !== null);
  return items.length === 0 ? [] : ['#### Artifacts', '', ...items, ''];
}
