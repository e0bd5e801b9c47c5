/**
 * compare.html: the verdict, the table of every group x metric, and per group the percentile
 * distributions of baseline (dashed) and candidate (solid) overlaid for TTFT, ITL, TPOT and E2E.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunSummary } from '../run-summary.js';
import type { Block, Cell, PageDocument, Section } from '../html/document-model.js';
import { PLOTTED_METRICS, percentileChart } from '../html/build-report-document.js';
import { decodeHistogram } from '../html/histogram-series.js';
import { METRIC_LABELS } from '../html/metric-labels.js';
import { renderHtmlPage } from '../html/page-shell.js';
import type { CompareResult } from './compare-runs.js';
import { verdictLine } from './compare-table.js';
import { formatChange, formatPValue, formatValue, VERDICT_TEXT } from './format-values.js';

/** Builds the compare page document. */
export function buildCompareDocument(result: CompareResult, baseline: RunSummary, candidate: RunSummary): PageDocument {
  const verdictBlocks: Block[] = [
    { kind: 'badges', items: [result.regressions > 0 ? { text: `${result.regressions} regression(s)`, tone: 'bad' } : { text: 'no regression', tone: 'ok' }] },
    { kind: 'paragraph', text: verdictLine(result), tone: result.regressions > 0 ? 'bad' : 'ok' },
    {
      kind: 'kv',
      rows: [
        ['Baseline', `${result.baseline.runId} (${result.baseline.dir})`],
        ['Candidate', `${result.candidate.runId} (${result.candidate.dir})`],
        ['Profile', `${baseline.profile.name} / ${candidate.profile.name}`],
        ['Workload hash', baseline.workload_hash === candidate.workload_hash ? baseline.workload_hash : { text: `${baseline.workload_hash} vs ${candidate.workload_hash}`, tone: 'warn' }],
        ['Significance level', `${result.alpha}${result.correction === 'holm' ? `, Holm-adjusted over ${result.comparisons.length} tests` : ', no multiple-testing correction'}`],
        ['Rule', 'A regression is a change that is statistically significant (adjusted p < alpha) and worse than the tolerance.'],
      ],
    },
  ];
  if (result.warnings.length > 0) verdictBlocks.push({ kind: 'list', items: result.warnings.map((w) => ({ text: w, tone: 'warn' as const })) });
  if (result.mismatches.length > 0) {
    verdictBlocks.push({ kind: 'paragraph', text: 'Compared with --force although the workloads differ:', tone: 'warn' }, { kind: 'list', items: result.mismatches.map((m) => ({ text: m, tone: 'warn' as const })) });
  }
  const tone = (verdict: string): Cell => ({ text: VERDICT_TEXT[verdict as keyof typeof VERDICT_TEXT], tone: verdict === 'regression' ? 'bad' : verdict === 'improved' ? 'ok' : verdict === 'no_data' ? 'muted' : 'plain' });
  const sections: Section[] = [
    { id: 'verdict', title: 'Verdict', blocks: verdictBlocks },
    {
      id: 'metrics',
      title: 'Every group and metric',
      blocks: [
        {
          kind: 'table',
          columns: ['group', 'metric', 'baseline', 'candidate', 'change', 'p (this test)', result.correction === 'holm' ? 'p (Holm, used)' : 'p (used)', 'test', 'tolerance', 'verdict'],
          numericFrom: 2,
          rows: result.comparisons.map((c) => [c.group, c.metricId, formatValue(c.baseline, c.unit), formatValue(c.candidate, c.unit), formatChange(c), formatPValue(c.pValue), formatPValue(c.pAdjusted), c.test, c.tolerance, tone(c.verdict)]),
        },
      ],
    },
  ];
  const candidateGroups = new Map(candidate.groups.map((g) => [g.key, g]));
  const distributionBlocks: Block[] = [];
  baseline.groups.forEach((base, groupIndex) => {
    const cand = candidateGroups.get(base.key);
    if (!cand) return;
    const charts: Block[] = [];
    for (const metric of PLOTTED_METRICS) {
      const b = decodeHistogram(base.histograms[metric], metric);
      const c = decodeHistogram(cand.histograms[metric], metric);
      const entries = [
        ...(b ? [{ label: 'baseline', histogram: b, dashed: true, color: 7 }] : []),
        ...(c ? [{ label: 'candidate', histogram: c, color: 0 }] : []),
      ];
      if (entries.length === 0) continue;
      charts.push({ kind: 'chart', chart: percentileChart(`cmp-${groupIndex}-${metric}`, `${METRIC_LABELS[metric]}`, metric, entries) });
    }
    distributionBlocks.push({ kind: 'heading', text: base.key }, { kind: 'grid', blocks: charts });
  });
  sections.push({ id: 'distributions', title: 'Percentile distributions: baseline (dashed) vs candidate (solid)', blocks: distributionBlocks });
  return {
    title: `inferbench compare: ${result.regressions > 0 ? `${result.regressions} regression(s)` : 'no regression'}`,
    subtitle: `${result.baseline.runId} (baseline) vs ${result.candidate.runId} (candidate)`,
    sections,
    footer: 'Significance: Mann-Whitney U on per-request values (requests.csv) or on the HdrHistograms; error rates by a two-proportion z-test.',
  };
}

/** Writes `<dir>/compare.html` and returns its path. */
export async function writeCompareHtml(dir: string, result: CompareResult, baseline: RunSummary, candidate: RunSummary): Promise<string> {
  const path = join(dir, 'compare.html');
  await writeFile(path, renderHtmlPage(buildCompareDocument(result, baseline, candidate)), 'utf8');
  return path;
}
