/**
 * The charts of a capacity search in report.html, built from summary.json's `capacity`: latency against
 * throughput (one marker per step, its shape the step's outcome) with the latency SLOs as horizontal lines
 * and the capacity as a vertical line over its 95% band; and per objective the exceedance against offered
 * load, observed and fitted, with the fit's band, the allowed fraction and the capacity; with
 * target.server_metrics, the server's concepts of the knee rule per step against offered load (requests
 * waiting and running; KV-cache and GPU use in %), with the server objectives as horizontal lines. Pure:
 * the page script only draws what these return.
 */
import type {
  CapacityGroupSummary,
  CapacityObjectiveSummary,
  CapacityStepSummary,
} from '../../metrics/capacity-summary.js';
import { KNEE_CONCEPTS, kneeValue } from '../../aggregate/capacity/server-knee.js';
import { isServerObjectiveKey, serverObjectiveLabel } from '../../aggregate/capacity/server-objective.js';
import { lowerIsBetter, metricUnit } from '../../metrics/metric-registry.js';
import type { ChartMarkers, ChartRule, ChartSeries, ChartSpec, Tone } from './document-model.js';
import { fmt } from './document-model.js';

export const OUTCOME_TONE: Readonly<Record<CapacityStepSummary['outcome'], Tone>> = {
  pass: 'ok',
  fail: 'bad',
  inconclusive: 'warn',
};

const OUTCOME_LEGEND: ChartMarkers['legend'] = [
  { tone: 'ok', label: 'pass' },
  { tone: 'bad', label: 'fail' },
  { tone: 'warn', label: 'inconclusive' },
];

type LatencyKey = 'ttft_ms' | 'itl_ms' | 'e2e_ms';

/** The latencies drawn per step; an SLO line takes the colour of its metric's first series. */
const LATENCY_SERIES: readonly { label: string; metric: LatencyKey; stat: 'p50' | 'p99'; color: number }[] = [
  { label: 'TTFT p99', metric: 'ttft_ms', stat: 'p99', color: 0 },
  { label: 'TTFT p50', metric: 'ttft_ms', stat: 'p50', color: 5 },
  { label: 'ITL p99', metric: 'itl_ms', stat: 'p99', color: 2 },
  { label: 'E2E p99', metric: 'e2e_ms', stat: 'p99', color: 4 },
];

const CAPACITY_COLOR = 7;
const FIT_COLOR = 4;

/** The metric an objective key reads: `ttft_ms.p99` -> `ttft_ms`; `error_rate` stays. */
export function objectiveMetric(key: string): string {
  const dot = key.lastIndexOf('.');
  return dot < 0 ? key : key.slice(0, dot);
}

/** An objective as a reader says it: `ttft_ms.p95 < 400 ms`, `error_rate < 5 %`, `fluidity_index.p1 >= 0.9`. */
export function objectiveLabel(objective: CapacityObjectiveSummary): string {
  if (isServerObjectiveKey(objective.key)) return serverObjectiveLabel(objective);
  if (objective.key === 'error_rate') return `error_rate < ${fmt(objective.limit * 100)} %`;
  const metric = objectiveMetric(objective.key);
  const unit = metricUnit(metric);
  return `${objective.key} ${lowerIsBetter(metric) ? '<' : '>='} ${fmt(objective.limit)}${unit ? ` ${unit}` : ''}`;
}

/** The y label of an objective's exceedance chart. */
function exceedanceLabel(objective: CapacityObjectiveSummary): string {
  if (objective.key === 'error_rate') return 'failed requests (%)';
  const metric = objectiveMetric(objective.key);
  const unit = metricUnit(metric);
  return `requests ${lowerIsBetter(metric) ? 'over' : 'below'} ${fmt(objective.limit)}${unit ? ` ${unit}` : ''} (%)`;
}

/** The capacity as a vertical line over its interval; none when even the lowest load failed. */
export function capacityRule(group: CapacityGroupSummary): ChartRule | null {
  if (group.capacity === null) return null;
  const value = `${group.censored ? '>= ' : ''}${fmt(group.capacity)} ${group.unit}`;
  const interval = group.interval ? `, 95% interval ${fmt(group.interval[0])} – ${fmt(group.interval[1])}` : '';
  return {
    axis: 'x',
    value: group.capacity,
    label: `capacity ${value}${interval}`,
    short: `capacity ${value}`,
    color: CAPACITY_COLOR,
    // A censored capacity is only the highest load tried: drawn dashed, a bound rather than a crossing.
    ...(group.censored ? { dashed: true } : {}),
    ...(group.interval ? { band: [group.interval[0], group.interval[1]] as const } : {}),
  };
}

/** Horizontal lines for the latency objectives (ms), coloured like the series of their metric. */
export function latencySloRules(objectives: readonly CapacityObjectiveSummary[]): ChartRule[] {
  return objectives
    .filter(
      (o) => o.key !== 'error_rate' && !isServerObjectiveKey(o.key) && metricUnit(objectiveMetric(o.key)) === 'ms',
    )
    .map((o) => {
      const series = LATENCY_SERIES.find((s) => s.metric === objectiveMetric(o.key));
      return {
        axis: 'y' as const,
        value: o.limit,
        label: `SLO ${objectiveLabel(o)}`,
        dashed: true,
        ...(series ? { color: series.color } : { tone: 'bad' as const }),
      };
    });
}

/** Steps with an x on the latency chart, in x order (achieved req/s for rate, offered streams otherwise). */
function latencyPoints(group: CapacityGroupSummary): { x: number; step: CapacityStepSummary }[] {
  const points: { x: number; step: CapacityStepSummary }[] = [];
  for (const step of group.steps) {
    const x = group.mode === 'rate' ? step.achieved_per_s : step.load;
    if (x !== null && Number.isFinite(x)) points.push({ x, step });
  }
  return points.sort((a, b) => a.x - b.x || a.step.step - b.step.step);
}

/** Latency (ms) against throughput, one marker per step. */
export function capacityLatencyChart(
  id: string,
  group: CapacityGroupSummary,
  objectives: readonly CapacityObjectiveSummary[],
): ChartSpec {
  const points = latencyPoints(group);
  const series: ChartSeries[] = LATENCY_SERIES.map((s) => ({
    label: s.label,
    values: points.map((p) => p.step[s.metric]?.[s.stat] ?? null),
    color: s.color,
    pointsOnly: true,
    marked: true,
  }));
  const capacity = capacityRule(group);
  const byRate = group.mode === 'rate';
  return {
    id,
    title: `${group.group}: latency against ${byRate ? 'achieved throughput' : 'offered concurrency'}`,
    kind: 'linear',
    xLabel: byRate ? 'achieved (req/s)' : `offered (${group.unit})`,
    yLabel: 'latency (ms)',
    x: points.map((p) => p.x),
    series,
    rules: [...latencySloRules(objectives), ...(capacity ? [capacity] : [])],
    markers: { tones: points.map((p) => OUTCOME_TONE[p.step.outcome]), legend: OUTCOME_LEGEND },
  };
}

/** A fraction as a percentage, null kept. */
function percent(value: number | null | undefined): number | null {
  return value === null || value === undefined || !Number.isFinite(value) ? null : value * 100;
}

/** One objective's exceedance (%) against offered load: observed markers, the monotone fit and its band. */
export function capacityExceedanceChart(
  id: string,
  group: CapacityGroupSummary,
  objective: CapacityObjectiveSummary,
): ChartSpec {
  const steps = [...group.steps].sort((a, b) => a.load - b.load || a.step - b.step);
  const at = (pick: 'observed' | 'fitted' | 'low' | 'high'): (number | null)[] =>
    steps.map((s) => percent(s.exceedance[objective.key]?.[pick]));
  const capacity = capacityRule(group);
  const allowed: ChartRule = {
    axis: 'y',
    value: objective.allowed * 100,
    label: `allowed ${fmt(objective.allowed * 100)} % over the limit (${objectiveLabel(objective)})`,
    short: `allowed ${fmt(objective.allowed * 100)} %`,
    tone: 'bad',
    dashed: true,
  };
  return {
    id,
    title: `${group.group}: ${objective.key} exceedance against offered load`,
    kind: 'linear',
    xLabel: `offered (${group.unit})`,
    yLabel: exceedanceLabel(objective),
    x: steps.map((s) => s.load),
    series: [
      { label: 'observed', values: at('observed'), color: 0, pointsOnly: true, marked: true },
      { label: 'fitted (monotone)', values: at('fitted'), color: FIT_COLOR },
      { label: 'fit 95% low', values: at('low'), color: FIT_COLOR, thin: true, dashed: true },
      { label: 'fit 95% high', values: at('high'), color: FIT_COLOR, thin: true, dashed: true },
    ],
    bands: [{ upper: 3, lower: 2, color: FIT_COLOR }],
    rules: [allowed, ...(capacity ? [capacity] : [])],
    markers: { tones: steps.map((s) => OUTCOME_TONE[s.outcome]), legend: OUTCOME_LEGEND },
  };
}

/** The server charts: the queue (requests) and the use of KV cache and GPU (%), each drawn when a step has it. */
const SERVER_CHARTS = [
  { unit: 'requests', title: 'requests on the server', yLabel: 'requests (max over the step)', scale: 1 },
  { unit: 'ratio', title: 'KV cache and GPU use', yLabel: 'use (%)', scale: 100 },
] as const;

/**
 * The server per step against offered load (target.server_metrics): one chart per unit of the knee rule's
 * concepts (aggregate/capacity/server-knee.ts) that some step has, with the server objectives on those
 * concepts as dashed lines and the capacity. Empty when no step was scraped.
 */
export function capacityServerCharts(
  id: string,
  group: CapacityGroupSummary,
  objectives: readonly CapacityObjectiveSummary[],
): ChartSpec[] {
  const steps = [...group.steps].sort((a, b) => a.load - b.load || a.step - b.step);
  const capacity = capacityRule(group);
  return SERVER_CHARTS.flatMap((chart, c) => {
    const concepts = KNEE_CONCEPTS.filter((concept) => concept.unit === chart.unit);
    const series: ChartSeries[] = concepts
      .map((concept, i) => ({
        label: `${concept.label} (${concept.stat})`,
        values: steps.map((step) => {
          const value = kneeValue(step.server, concept);
          return value === null ? null : value * chart.scale;
        }),
        color: i,
        marked: true,
      }))
      .filter((line) => line.values.some((value) => value !== null));
    if (series.length === 0) return [];
    const bounds: ChartRule[] = objectives
      .filter((o) => concepts.some((concept) => o.key.startsWith(`${concept.concept}.`)))
      .map((o) => ({
        axis: 'y',
        value: o.limit * chart.scale,
        label: `SLO ${objectiveLabel(o)}`,
        tone: 'bad',
        dashed: true,
      }));
    return [
      {
        id: `${id}-${c}`,
        title: `${group.group}: ${chart.title} against offered load`,
        kind: 'linear',
        xLabel: `offered (${group.unit})`,
        yLabel: chart.yLabel,
        x: steps.map((step) => step.load),
        series,
        rules: [...bounds, ...(capacity ? [capacity] : [])],
        markers: { tones: steps.map((step) => OUTCOME_TONE[step.outcome]), legend: OUTCOME_LEGEND },
      },
    ];
  });
}
