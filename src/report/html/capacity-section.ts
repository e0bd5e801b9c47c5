/**
 * The Capacity section of report.html, present when summary.json holds a capacity search: per group a
 * headline (the capacity with its 95% interval and unit, `>=` when no step failed, the binding objective,
 * the search's time and steps; with target.server_metrics, what the server showed at the knee), the
 * latency, exceedance and server charts (capacity-charts.ts) and a table of the steps with the reason of
 * every decision (and the server over each, when scraped).
 */
import { serverBrief } from '../../aggregate/capacity/server-knee.js';
import { isServerObjectiveKey } from '../../aggregate/capacity/server-objective.js';
import type { CapacityGroupSummary, CapacitySummary } from '../../metrics/capacity-summary.js';
import {
  capacityExceedanceChart,
  capacityLatencyChart,
  capacityServerCharts,
  OUTCOME_TONE,
  objectiveLabel,
} from './capacity-charts.js';
import type { Block, Cell, Section, Tone } from './document-model.js';
import { fmt } from './document-model.js';

/** The headline number: `27.6 req/s`, `>= 53.6 req/s` (censored), or why there is none. */
export function capacityHeadline(group: CapacityGroupSummary): { text: string; tone: Tone } {
  if (group.capacity === null) {
    const lowest = group.steps.length > 0 ? Math.min(...group.steps.map((s) => s.load)) : null;
    return { text: `no capacity: even the lowest load tried (${fmt(lowest)} ${group.unit}) failed`, tone: 'bad' };
  }
  const interval = group.interval
    ? ` (95% interval ${fmt(group.interval[0])} – ${fmt(group.interval[1])} ${group.unit})`
    : ' (no interval)';
  const value = `${group.censored ? '>= ' : ''}${fmt(group.capacity)} ${group.unit}`;
  return { text: `capacity ${value}${interval}`, tone: group.below_min || group.censored ? 'warn' : 'ok' };
}

/** How many steps ended in each outcome: `9 steps (5 pass, 4 fail)`. */
function stepCounts(group: CapacityGroupSummary): string {
  const counts = (['pass', 'fail', 'inconclusive'] as const)
    .map((outcome) => [outcome, group.steps.filter((s) => s.outcome === outcome).length] as const)
    .filter(([, n]) => n > 0)
    .map(([outcome, n]) => `${n} ${outcome}`);
  return `${group.steps.length} steps${counts.length > 0 ? ` (${counts.join(', ')})` : ''}`;
}

function headlineBlocks(capacity: CapacitySummary, group: CapacityGroupSummary): Block[] {
  const headline = capacityHeadline(group);
  const binding = capacity.objectives.find((o) => o.key === group.binding);
  const badges: { text: string; tone: Tone }[] = [headline];
  if (group.censored) badges.push({ text: 'no step failed: a lower bound (the highest load tried)', tone: 'warn' });
  if (group.below_min)
    badges.push({ text: `BELOW min_capacity ${fmt(capacity.settings.min_capacity)} ${group.unit}`, tone: 'bad' });
  const rows: (readonly [string, Cell])[] = [
    ['Binding objective', binding ? objectiveLabel(binding) : (group.binding ?? '–')],
    ['Last pass / first fail', `${fmt(group.last_pass)} / ${fmt(group.first_fail)} ${group.unit}`],
    ...(group.server_at_knee === undefined
      ? []
      : [['Server at the knee', group.server_at_knee ?? '–'] as const satisfies readonly [string, Cell]]),
    ['Goodput at the capacity', `${fmt(group.goodput_per_s)} req/s`],
    ['Search', `${fmt(group.search_ms / 1000, 1)} s, ${stepCounts(group)}`],
    ['Ended because', group.end_reason],
  ];
  if (group.calibration)
    rows.push([
      'Calibration',
      `E2E ${fmt(group.calibration.e2e_ms)} ms, started at ${fmt(group.calibration.start_load)} ${group.unit}`,
    ]);
  return [
    { kind: 'heading', text: group.group },
    { kind: 'badges', items: badges },
    { kind: 'kv', rows },
  ];
}

function stepsTable(group: CapacityGroupSummary): Block {
  const scraped = group.server_at_knee !== undefined;
  const rows: Cell[][] = group.steps.map((s) => [
    String(s.step),
    fmt(s.load),
    { text: s.outcome.toUpperCase(), tone: OUTCOME_TONE[s.outcome] },
    fmt(s.achieved_per_s),
    String(s.requests),
    fmt(s.ttft_ms?.p50),
    fmt(s.ttft_ms?.p99),
    ...(scraped ? [serverBrief(s.server) || '–'] : []),
    s.reason,
  ]);
  return {
    kind: 'table',
    caption: `Steps of the search, in the order they ran (${group.group})`,
    columns: [
      'step',
      `load (${group.unit})`,
      'outcome',
      'achieved (req/s)',
      'requests',
      'TTFT p50 (ms)',
      'TTFT p99 (ms)',
      ...(scraped ? ['server'] : []),
      'reason',
    ],
    rows,
  };
}

function groupBlocks(capacity: CapacitySummary, group: CapacityGroupSummary, index: number): Block[] {
  const charts: Block[] = [
    { kind: 'chart', chart: capacityLatencyChart(`capacity-latency-${index}`, group, capacity.objectives) },
    ...capacity.objectives.flatMap((objective, o): Block[] =>
      // A server objective has no exceedance: its values are on the server charts.
      isServerObjectiveKey(objective.key)
        ? []
        : [{ kind: 'chart', chart: capacityExceedanceChart(`capacity-exceedance-${index}-${o}`, group, objective) }],
    ),
    ...capacityServerCharts(`capacity-server-${index}`, group, capacity.objectives).map(
      (chart): Block => ({ kind: 'chart', chart }),
    ),
  ];
  return [...headlineBlocks(capacity, group), { kind: 'grid', blocks: charts }, stepsTable(group)];
}

/** The whole section; summary.json's `capacity` is its only input. */
export function capacitySection(capacity: CapacitySummary): Section {
  const s = capacity.settings;
  const intro: Block = {
    kind: 'paragraph',
    text:
      `SLO: ${capacity.objectives.map(objectiveLabel).join(', ')}. Each step's decision is a sequential test ` +
      `(alpha ${fmt(s.alpha, 3)}, beta ${fmt(s.beta, 3)}) on ${fmt(s.block_ms / 1000, 1)} s blocks; the capacity is ` +
      `where the monotone fit of exceedance against load crosses the allowed fraction, with a 95% interval ` +
      `(nominal: see docs/capacity.md). Markers: dot pass, cross fail, ring inconclusive. In rate mode the latency chart's x is the ` +
      `achieved rate, while the capacity line is on the offered rate.`,
    tone: 'muted',
  };
  const blocks: Block[] = [intro];
  capacity.groups.forEach((group, index) => {
    blocks.push(...groupBlocks(capacity, group, index));
  });
  return { id: 'capacity', title: 'Capacity', blocks };
}
