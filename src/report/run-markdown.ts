/**
 * The markdown of a run (`run --markdown FILE`, and $GITHUB_STEP_SUMMARY): a verdict line, one row per
 * group (requests, error rate, TTFT/ITL/E2E percentiles, rates) and the thresholds. Cells are escaped as in
 * the comparison's markdown (report/markdown.ts).
 */
import type { GroupSummary, MetricName, RunSummary } from '../metrics/run-summary.js';
import { escapeMarkdownCell } from './markdown.js';

/** The run as GitHub-flavoured markdown. */
export function formatRunMarkdown(summary: RunSummary): string {
  const e = escapeMarkdownCell;
  const failed = summary.thresholds.filter((t) => !t.passed);
  const verdict =
    failed.length > 0
      ? `❌ ${failed.length} threshold(s) failed`
      : summary.complete
        ? '✅ complete'
        : `⚠️ not complete${summary.stopped ? ` (${summary.stopped.reason})` : ''}`;
  const lines = [
    `### inferbench run ${e(summary.profile.name)}: ${verdict}`,
    '',
    `Run \`${e(summary.run_id)}\` against ${e(summary.target.base_url)}.`,
    '',
    '| group | ok | failed | error rate | TTFT p50 | TTFT p99 | ITL p99 | E2E p99 | req/s | goodput/s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...summary.groups.map((group) => groupRow(group, e)),
    '',
  ];
  if (summary.thresholds.length > 0) {
    lines.push('| threshold | group | actual | verdict |', '|---|---|---:|---|');
    for (const t of summary.thresholds)
      lines.push(
        `| ${e(t.expression)} | ${e(t.group)} | ${e(String(t.actual ?? 'none'))} | ${t.passed ? 'pass' : '**FAIL**'} |`,
      );
    lines.push('');
  }
  return lines.join('\n');
}

function groupRow(group: GroupSummary, e: (text: string) => string): string {
  const ms = (metric: MetricName, stat: 'p50' | 'p99') => {
    const value = group.metrics[metric]?.[stat];
    return value === undefined || value === null ? '' : `${value.toFixed(1)} ms`;
  };
  const rate = (value: number) => value.toFixed(2);
  return `| ${e(group.key)} | ${group.requests.ok} | ${group.requests.failed} | ${(group.error_rate * 100).toFixed(2)}% | ${ms('ttft_ms', 'p50')} | ${ms('ttft_ms', 'p99')} | ${ms('itl_ms', 'p99')} | ${ms('e2e_ms', 'p99')} | ${rate(group.throughput.requests_per_s)} | ${rate(group.throughput.goodput_per_s)} |`;
}
