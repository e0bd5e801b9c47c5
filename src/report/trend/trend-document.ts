/**
 * trend.html: the runs in order, the change points (neighbour verdicts of regression or improved), one
 * chart per compared metric with a line per group over the runs and a pin on every change point, and per
 * group the verdict of each run against the one before. Drawn by the same page shell and script as
 * report.html (one self-contained file, nothing fetched).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMetricName } from '../../metrics/metric-registry.js';
import type { Block, Cell, ChartPin, ChartSeries, PageDocument, Section, Tone } from '../html/document-model.js';
import { METRIC_LABELS } from '../html/metric-labels.js';
import { renderHtmlPage } from '../html/page-shell.js';
import type { MetricComparison, Verdict } from '../compare/compare-runs.js';
import { formatChange, formatPValue, formatValue, VERDICT_TEXT } from '../compare/format-values.js';
import type { TrendResult, TrendRun, TrendSeries } from './trend-runs.js';
import { changeKindOf } from './trend-runs.js';

export const TREND_HTML = 'trend.html';

const VERDICT_TONE: Record<Verdict, Tone> = {
  regression: 'bad',
  improved: 'ok',
  not_called: 'warn',
  within_tolerance: 'plain',
  not_significant: 'plain',
  no_data: 'muted',
};

export function buildTrendDocument(trend: TrendResult): PageDocument {
  const regressions = trend.changePoints.filter((c) => c.kind === 'regression').length;
  const first = trend.runs[0] as TrendRun;
  const last = trend.runs[trend.runs.length - 1] as TrendRun;
  return {
    title: `inferbench trend: ${trend.runs.length} runs, ${regressions === 0 ? 'no regression' : `${regressions} regression(s)`} between neighbours`,
    subtitle: `${first.name} (${first.startedAt}) to ${last.name} (${last.startedAt})`,
    sections: [
      summarySection(trend),
      runsSection(trend),
      changePointsSection(trend),
      chartsSection(trend),
      verdictsSection(trend),
    ],
    footer:
      'Each run is compared with the one before it exactly as `inferbench compare` does (same tolerances, tests and Holm correction per pair). A change point is a pair whose verdict is a regression or an improvement.',
  };
}

/** Writes `<dir>/trend.html` and returns its path. */
export async function writeTrendHtml(dir: string, trend: TrendResult): Promise<string> {
  const path = join(dir, TREND_HTML);
  await writeFile(path, renderHtmlPage(buildTrendDocument(trend)), 'utf8');
  return path;
}

function summarySection(trend: TrendResult): Section {
  const regressions = trend.changePoints.filter((c) => c.kind === 'regression').length;
  const improvements = trend.changePoints.length - regressions;
  const blocks: Block[] = [
    {
      kind: 'badges',
      items: [
        { text: `${trend.runs.length} runs`, tone: 'muted' },
        regressions > 0
          ? { text: `${regressions} regression(s) between neighbours`, tone: 'bad' }
          : { text: 'no regression between neighbours', tone: 'ok' },
        ...(improvements > 0 ? [{ text: `${improvements} improvement(s)`, tone: 'ok' as const }] : []),
      ],
    },
    {
      kind: 'kv',
      rows: [
        [
          'Significance level',
          `${trend.alpha}${trend.correction === 'holm' ? ', Holm-adjusted over the tests of each pair' : ', no multiple-testing correction'}`,
        ],
        [
          'Change point',
          'a run whose comparison with the run before it is a regression (significant and worse than the tolerance) or an improvement',
        ],
      ],
    },
  ];
  const notes = trend.pairNotes.flatMap((p) => p.notes.map((n) => `run ${p.position}: ${n}`));
  if (notes.length > 0) blocks.push({ kind: 'list', items: notes.map((text) => ({ text, tone: 'warn' as const })) });
  return { id: 'summary', title: 'Summary', blocks };
}

function runsSection(trend: TrendResult): Section {
  return {
    id: 'runs',
    title: 'Runs, in order',
    blocks: [
      {
        kind: 'table',
        columns: ['#', 'name', 'label', 'commit', 'run id', 'started at', 'folder', 'warnings'],
        rows: trend.runs.map((run) => [
          String(run.position),
          run.name,
          run.label ?? '–',
          run.commit ?? '–',
          run.runId,
          run.startedAt,
          run.dir,
          run.warnings.length === 0 ? '' : { text: run.warnings.join('\n'), tone: 'warn' },
        ]),
      },
    ],
  };
}

function changePointsSection(trend: TrendResult): Section {
  const name = (position: number): string => `${position}: ${trend.runs[position - 1]?.name ?? '?'}`;
  if (trend.changePoints.length === 0)
    return {
      id: 'change-points',
      title: 'Change points',
      blocks: [{ kind: 'paragraph', text: 'No run differs significantly beyond tolerance from the run before it.' }],
    };
  return {
    id: 'change-points',
    title: 'Change points',
    blocks: [
      {
        kind: 'table',
        columns: ['run', 'previous run', 'group', 'metric', 'before', 'after', 'change', 'p (used)', 'verdict'],
        numericFrom: 4,
        rows: trend.changePoints.map((c) => [
          name(c.position),
          name(c.position - 1),
          c.group,
          c.metricId,
          formatValue(c.comparison.baseline, c.comparison.unit),
          formatValue(c.comparison.candidate, c.comparison.unit),
          formatChange(c.comparison),
          formatPValue(c.comparison.pAdjusted),
          verdictCell(c.comparison.verdict),
        ]),
      },
    ],
  };
}

/** One chart per compared metric: a line per group over the runs, a pin on each change point. */
function chartsSection(trend: TrendResult): Section {
  const groups = [...new Set(trend.series.map((s) => s.group))];
  const metricIds = [...new Set(trend.series.map((s) => s.metricId))];
  const x = trend.runs.map((run) => run.position);
  const blocks: Block[] = metricIds.map((metricId) => {
    const lines = groups.flatMap((group) => {
      const s = trend.series.find((t) => t.group === group && t.metricId === metricId);
      return s === undefined ? [] : [{ series: s, color: groups.indexOf(group) }];
    });
    const unit = lines[0]?.series.unit ?? '';
    const series: ChartSeries[] = lines.map(({ series: s, color }) => ({ label: s.group, values: s.values, color }));
    const pins: ChartPin[] = lines.flatMap(({ series: s }, seriesIndex) => pinsOf(s, seriesIndex, trend.runs));
    return {
      kind: 'chart',
      chart: {
        id: `trend-${metricId}`,
        title: `${metricTitle(metricId)}${unit ? ` (${unit})` : ''}`,
        kind: 'linear',
        xLabel: 'run',
        yLabel: unit ? `${metricId} (${unit})` : metricId,
        x,
        xNames: trend.runs.map((run) => run.name),
        series,
        points: true,
        ...(pins.length === 0 ? {} : { pins }),
      },
    };
  });
  return { id: 'charts', title: 'Every compared metric over the runs', blocks: [{ kind: 'grid', blocks }] };
}

function pinsOf(series: TrendSeries, seriesIndex: number, runs: readonly TrendRun[]): ChartPin[] {
  return series.steps.flatMap((step, index) => {
    const kind = step === null ? null : changeKindOf(step.verdict);
    if (step === null || kind === null) return [];
    const run = runs[index] as TrendRun;
    return [
      {
        series: seriesIndex,
        index,
        tone: kind === 'regression' ? 'bad' : 'ok',
        title: `run ${run.position} (${run.name}), ${series.group}: ${step.reason}`,
        data: {
          'data-change-point': kind,
          'data-group': series.group,
          'data-metric': series.metricId,
          'data-run': String(run.position),
          'data-run-name': run.name,
          'data-value': String(step.candidate),
          'data-previous': String(step.baseline),
          'data-p-adjusted': step.pAdjusted === null ? '' : String(step.pAdjusted),
        },
      },
    ];
  });
}

/** Per group: a row per metric, a column per run from the second, the verdict against the run before. */
function verdictsSection(trend: TrendResult): Section {
  const groups = [...new Set(trend.series.map((s) => s.group))];
  const blocks: Block[] = groups.map((group) => ({
    kind: 'table',
    caption: group,
    columns: ['metric', ...trend.runs.slice(1).map((run) => `${run.position}: ${run.name}`)],
    rows: trend.series
      .filter((s) => s.group === group)
      .map((s) => [s.metricId, ...s.steps.slice(1).map((step) => stepCell(step))]),
  }));
  return { id: 'verdicts', title: 'Each run against the one before', blocks };
}

function stepCell(step: MetricComparison | null): Cell {
  if (step === null) return { text: '–', tone: 'muted' };
  const change = step.verdict === 'no_data' ? '' : `\n${formatChange(step)}`;
  return { text: `${VERDICT_TEXT[step.verdict]}${change}`, tone: VERDICT_TONE[step.verdict] };
}

function verdictCell(verdict: Verdict): Cell {
  return { text: VERDICT_TEXT[verdict], tone: VERDICT_TONE[verdict] };
}

/** `TTFT p99` for `ttft_ms.p99`; a group value (`error_rate`) as it is named. */
function metricTitle(metricId: string): string {
  const dot = metricId.lastIndexOf('.');
  const metric = dot < 0 ? metricId : metricId.slice(0, dot);
  if (!isMetricName(metric)) return metricId;
  return `${METRIC_LABELS[metric]} ${metricId.slice(dot + 1)}`;
}
