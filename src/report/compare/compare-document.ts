/**
 * compare.html: the verdict, the two runs and their targets side by side, the table of every group x
 * metric, the server side of both runs when either scraped (context, no verdict), and per group the percentile distributions of baseline (dashed) and candidate (solid) overlaid
 * for TTFT, ITL, TPOT and E2E.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GroupSummary, RunSummary } from '../../metrics/run-summary.js';
import type { Block, Cell, PageDocument, Section } from '../html/document-model.js';
import { PLOTTED_METRICS, percentileChart } from '../html/build-report-document.js';
import { decodeHistogram } from '../html/histogram-series.js';
import { METRIC_LABELS } from '../html/metric-labels.js';
import { renderHtmlPage } from '../html/page-shell.js';
import type { CompareResult } from './compare-runs.js';
import { verdictLine } from './compare-table.js';
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

/** Builds the compare page document. */
export function buildCompareDocument(result: CompareResult, baseline: RunSummary, candidate: RunSummary): PageDocument {
  return {
    title: `inferbench compare: ${result.regressions > 0 ? `${result.regressions} regression(s)` : 'no regression'}`,
    subtitle: `${result.baseline.runId} (baseline) vs ${result.candidate.runId} (candidate)`,
    sections: [
      verdictSection(result, baseline, candidate),
      metricsSection(result),
      ...(result.server === undefined ? [] : [serverSection(result.server)]),
      distributionsSection(result, baseline, candidate),
    ],
    footer:
      'Significance: Mann-Whitney U on per-request values (requests.csv) or on the HdrHistograms; error rates by a two-proportion z-test.',
  };
}

/** The verdict, the two runs, the rule applied, and what the reader must know: pairs, warnings, mismatches. */
function verdictSection(result: CompareResult, baseline: RunSummary, candidate: RunSummary): Section {
  const blocks: Block[] = [
    {
      kind: 'badges',
      items: [
        result.regressions > 0
          ? { text: `${result.regressions} regression(s)`, tone: 'bad' }
          : { text: 'no regression', tone: 'ok' },
      ],
    },
    { kind: 'paragraph', text: verdictLine(result), tone: result.regressions > 0 ? 'bad' : 'ok' },
    runsTable(result, baseline, candidate),
    {
      kind: 'kv',
      rows: [
        [
          'Significance level',
          `${result.alpha}${result.correction === 'holm' ? `, Holm-adjusted over ${result.comparisons.length} tests` : ', no multiple-testing correction'}`,
        ],
        [
          'Rule',
          'A regression is a change that is statistically significant (adjusted p < alpha) and worse than the tolerance.',
        ],
      ],
    },
  ];
  if (result.pairs.length > 0) {
    blocks.push(
      { kind: 'paragraph', text: 'Groups paired with --pair (same requests, models named differently):' },
      { kind: 'list', items: result.pairs.map((p) => `${p.baseline} (baseline) with ${p.candidate} (candidate)`) },
    );
  }
  if (result.warnings.length > 0)
    blocks.push({ kind: 'list', items: result.warnings.map((w) => ({ text: w, tone: 'warn' as const })) });
  if (result.mismatches.length > 0) {
    blocks.push(
      { kind: 'paragraph', text: 'Compared with --force although the workloads differ:', tone: 'warn' },
      { kind: 'list', items: result.mismatches.map((m) => ({ text: m, tone: 'warn' as const })) },
    );
  }
  return { id: 'verdict', title: 'Verdict', blocks };
}

/** A comparison's verdict as a table cell, toned by what it means. */
function verdictCell(verdict: string): Cell {
  return {
    text: VERDICT_TEXT[verdict as keyof typeof VERDICT_TEXT],
    tone:
      verdict === 'regression'
        ? 'bad'
        : verdict === 'improved'
          ? 'ok'
          : verdict === 'no_data' || verdict === 'not_called'
            ? 'muted'
            : 'plain',
  };
}

/** One row per group x metric: both values, the change, both p-values, the test, the tolerance, the verdict. */
function metricsSection(result: CompareResult): Section {
  return {
    id: 'metrics',
    title: 'Every group and metric',
    blocks: [
      {
        kind: 'table',
        columns: [
          'group',
          'metric',
          'baseline',
          'candidate',
          'change',
          'p (this test)',
          result.correction === 'holm' ? 'p (Holm, used)' : 'p (used)',
          'test',
          'tolerance',
          'verdict',
        ],
        numericFrom: 2,
        rows: result.comparisons.map((c) => [
          groupLabel(c),
          c.metricId,
          formatValue(c.baseline, c.unit),
          formatValue(c.candidate, c.unit),
          formatChange(c),
          formatPValue(c.pValue),
          formatPValue(c.pAdjusted),
          c.test,
          c.tolerance,
          verdictCell(c.verdict),
        ]),
      },
    ],
  };
}

/** The server side of both runs: what each scraped, the note when only one did, the table. */
function serverSection(server: ServerComparison): Section {
  const [baselineLine, candidateLine, ...note] = serverPreamble(server);
  const blocks: Block[] = [
    { kind: 'list', items: [baselineLine ?? '', candidateLine ?? ''] },
    ...note.map((text): Block => ({ kind: 'paragraph', text, tone: 'warn' })),
  ];
  const rows = serverRows(server);
  if (rows.length > 0) blocks.push({ kind: 'table', columns: [...SERVER_COLUMNS], numericFrom: 2, rows });
  return { id: 'server', title: SERVER_SECTION_TITLE, blocks };
}

/** Per matched group, the percentile charts of baseline (dashed) and candidate (solid) overlaid. */
function distributionsSection(result: CompareResult, baseline: RunSummary, candidate: RunSummary): Section {
  const candidateGroups = new Map(candidate.groups.map((g) => [g.key, g]));
  // The groups the comparison matched (by key, or by --pair).
  const partners = new Map(result.comparisons.map((c) => [c.group, c.candidateGroup]));
  const blocks: Block[] = [];
  baseline.groups.forEach((base, groupIndex) => {
    const partner = partners.get(base.key);
    const cand = partner === undefined ? undefined : candidateGroups.get(partner);
    if (!cand) return;
    blocks.push(
      { kind: 'heading', text: groupLabel({ group: base.key, candidateGroup: cand.key }) },
      { kind: 'grid', blocks: overlaidCharts(base, cand, groupIndex) },
    );
  });
  return {
    id: 'distributions',
    title: 'Percentile distributions: baseline (dashed) vs candidate (solid)',
    blocks,
  };
}

/** One chart per plotted metric with a histogram in either run; `groupIndex` keeps chart ids unique. */
function overlaidCharts(base: GroupSummary, cand: GroupSummary, groupIndex: number): Block[] {
  const charts: Block[] = [];
  for (const metric of PLOTTED_METRICS) {
    const b = decodeHistogram(base.histograms[metric], metric);
    const c = decodeHistogram(cand.histograms[metric], metric);
    const entries = [
      ...(b ? [{ label: 'baseline', histogram: b, dashed: true, color: 7 }] : []),
      ...(c ? [{ label: 'candidate', histogram: c, color: 0 }] : []),
    ];
    if (entries.length === 0) continue;
    charts.push({
      kind: 'chart',
      chart: percentileChart(`cmp-${groupIndex}-${metric}`, `${METRIC_LABELS[metric]}`, metric, entries),
    });
  }
  return charts;
}

/** The two runs side by side: run, target, profile, workload hashes, directory. Differences are marked. */
function runsTable(result: CompareResult, baseline: RunSummary, candidate: RunSummary): Block {
  const row = (label: string, a: string, b: string, differenceTone: 'warn' | 'plain' = 'warn'): Cell[] =>
    a === b ? [label, a, b] : [label, { text: a, tone: differenceTone }, { text: b, tone: differenceTone }];
  const rows: Cell[][] = [
    row('run', result.baseline.runId, result.candidate.runId, 'plain'),
    // Different targets are what a comparison of two deployments is about: shown, not warned about.
    row('target', targetLabel(result.baseline.target), targetLabel(result.candidate.target), 'plain'),
    row('profile', baseline.profile.name, candidate.profile.name),
    row('workload hash', baseline.workload_hash, candidate.workload_hash, result.pairs.length > 0 ? 'plain' : 'warn'),
  ];
  if (result.pairs.length > 0) {
    rows.push(
      row(
        'workload hash without models',
        baseline.workload_hash_without_models ?? '(not recorded)',
        candidate.workload_hash_without_models ?? '(not recorded)',
      ),
    );
  }
  rows.push(
    row('started', baseline.started_at, candidate.started_at, 'plain'),
    row('directory', result.baseline.dir, result.candidate.dir, 'plain'),
  );
  return {
    kind: 'table',
    caption: result.sameTarget ? 'The two runs' : 'The two runs: two targets (deployments) compared',
    columns: ['', 'baseline', 'candidate'],
    rows,
  };
}

/** Writes `<dir>/compare.html` and returns its path. */
export async function writeCompareHtml(
  dir: string,
  result: CompareResult,
  baseline: RunSummary,
  candidate: RunSummary,
): Promise<string> {
  const path = join(dir, 'compare.html');
  await writeFile(path, renderHtmlPage(buildCompareDocument(result, baseline, candidate)), 'utf8');
  return path;
}
