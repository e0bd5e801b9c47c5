/**
 * The markdown of a run (`run --markdown FILE`, and $GITHUB_STEP_SUMMARY): a verdict line, one row per
 * group (requests, error rate, TTFT/ITL/E2E percentiles, rates) and the thresholds. Cells are escaped as in
 * the comparison's markdown (report/markdown.ts). `run --repeat N` gets one for all its runs.
 */
import type { GroupSummary, MetricName, RunSummary, ThresholdResult } from '../metrics/run-summary.js';
import { escapeMarkdownCell } from './markdown.js';

const GROUP_HEADER =
  '| group | ok | failed | error rate | TTFT p50 | TTFT p99 | ITL p99 | E2E p99 | req/s | goodput/s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|';

/** The run as GitHub-flavoured markdown. */
export function formatRunMarkdown(summary: RunSummary): string {
  const e = escapeMarkdownCell;
  const lines = [
    `### inferbench run ${e(summary.profile.name)}: ${verdictOf(summary)}`,
    '',
    `Run \`${e(summary.run_id)}\` against ${e(summary.target.base_url)}.`,
    '',
    GROUP_HEADER,
    ...summary.groups.map((group) => groupRow(group, e)),
    '',
  ];
  if (summary.thresholds.length > 0) {
    lines.push('| threshold | group | actual | verdict |', '|---|---|---:|---|');
    for (const t of summary.thresholds) lines.push(`| ${thresholdCells(t, e)} |`);
    lines.push('');
  }
  return lines.join('\n');
}

/**
 * `run --repeat N` as one markdown summary (also what $GITHUB_STEP_SUMMARY gets, once): a verdict over
 * the repeats, one table with a row per repeat x group, and one of every repeat's thresholds.
 */
export function formatRepeatMarkdown(
  profile: string,
  repeats: readonly { readonly index: number; readonly summary: RunSummary | null }[],
): string {
  const e = escapeMarkdownCell;
  const written = repeats.flatMap(({ index, summary }) => (summary === null ? [] : [{ index, summary }]));
  const missing = repeats.length - written.length;
  const failedThresholds = written.reduce((n, r) => n + r.summary.thresholds.filter((t) => !t.passed).length, 0);
  const incomplete = written.filter((r) => !r.summary.complete).length;
  const verdict =
    failedThresholds > 0
      ? `❌ ${failedThresholds} threshold(s) failed`
      : missing > 0
        ? `❌ ${missing} run(s) wrote no results`
        : incomplete > 0
          ? `⚠️ ${incomplete} run(s) not complete`
          : '✅ complete';
  const [header, rule] = GROUP_HEADER.split('\n') as [string, string];
  const lines = [
    `### inferbench run ${e(profile)} x ${repeats.length}: ${verdict}`,
    '',
    `${repeats.length} runs of one profile${written[0] ? ` against ${e(written[0].summary.target.base_url)}` : ''}.`,
    '',
    `| repeat | run ${header}`,
    `|---:|---${rule}`,
  ];
  for (const { index, summary } of repeats) {
    if (summary === null) lines.push(`| ${index} | no results |${' |'.repeat(10)}`);
    else for (const group of summary.groups) lines.push(`| ${index} | ${e(summary.run_id)} ${groupRow(group, e)}`);
  }
  lines.push('');
  if (written.some((r) => r.summary.thresholds.length > 0)) {
    lines.push('| repeat | threshold | group | actual | verdict |', '|---:|---|---|---:|---|');
    for (const { index, summary } of written)
      for (const t of summary.thresholds) lines.push(`| ${index} | ${thresholdCells(t, e)} |`);
    lines.push('');
  }
  return lines.join('\n');
}

function verdictOf(summary: RunSummary): string {
  const failed = summary.thresholds.filter((t) => !t.passed);
  return failed.length > 0
    ? `❌ ${failed.length} threshold(s) failed`
    : summary.complete
      ? '✅ complete'
      : `⚠️ not complete${summary.stopped ? ` (${summary.stopped.reason})` : ''}`;
}

function thresholdCells(t: ThresholdResult, e: (text: string) => string): string {
  return `${e(t.expression)} | ${e(t.group)} | ${e(String(t.actual ?? 'none'))} | ${t.passed ? 'pass' : '**FAIL**'}`;
}

function groupRow(group: GroupSummary, e: (text: string) => string): string {
  const ms = (metric: MetricName, stat: 'p50' | 'p99') => {
    const value = group.metrics[metric]?.[stat];
    return value === undefined || value === null ? '' : `${value.toFixed(1)} ms`;
  };
  const rate = (value: number) => value.toFixed(2);
  return `| ${e(group.key)} | ${group.requests.ok} | ${group.requests.failed} | ${(group.error_rate * 100).toFixed(2)}% | ${ms('ttft_ms', 'p50')} | ${ms('ttft_ms', 'p99')} | ${ms('itl_ms', 'p99')} | ${ms('e2e_ms', 'p99')} | ${rate(group.throughput.requests_per_s)} | ${rate(group.throughput.goodput_per_s)} |`;
}
