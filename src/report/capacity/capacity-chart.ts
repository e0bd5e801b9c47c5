/**
 * `inferbench capacity --chart`: the search of each group as a text chart a terminal or a CI log shows,
 * the binding objective's share of requests over its limit against the load of every step (PASS `o`,
 * FAIL `x`, INCONCLUSIVE `?`), the monotone fit the capacity comes from (`.`), the allowed share (`-`),
 * and on that line the capacity (`|`) inside its 95% interval (`=`). The HTML report draws the same
 * curve with latencies beside it; this one needs no browser. A group bound by a server objective
 * (`kv_cache_usage.max`: a bound on each step's server window, no share of requests) gets one line
 * instead: the bound, the bracket it broke in, and what the server showed there.
 */
import { isServerObjectiveKey, serverObjectiveLabel } from '../../aggregate/capacity/server-objective.js';
import type { CapacityGroupSummary, CapacityObjectiveSummary } from '../../metrics/capacity-summary.js';

const WIDTH = 60;
const HEIGHT = 10;
const MARKS = { pass: 'o', fail: 'x', inconclusive: '?' } as const;

const percent = (fraction: number): string => `${Math.round(fraction * 1000) / 10}%`;
const loadLabel = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

interface Scale {
  readonly column: (load: number) => number;
  readonly row: (fraction: number) => number;
}

/** Linear axes: loads from 0 to the highest step (5% margin), shares from 0 to 3 x allowed or the highest. */
function scaleOf(group: CapacityGroupSummary, key: string, allowed: number): Scale & { readonly top: number } {
  const loads = group.steps.map((step) => step.load);
  const maxLoad = Math.max(...loads, group.interval?.[1] ?? 0) * 1.05;
  const shares = group.steps.map((step) => step.exceedance[key]?.observed ?? 0);
  const top = Math.min(1, Math.max(allowed * 3, ...shares));
  return {
    top,
    column: (load) => Math.min(WIDTH - 1, Math.max(0, Math.round((load / maxLoad) * (WIDTH - 1)))),
    row: (fraction) => HEIGHT - 1 - Math.min(HEIGHT - 1, Math.max(0, Math.round((fraction / top) * (HEIGHT - 1)))),
  };
}

function plotGrid(group: CapacityGroupSummary, key: string, allowed: number, scale: Scale): string[][] {
  const grid = Array.from({ length: HEIGHT }, () => Array.from({ length: WIDTH }, () => ' '));
  const put = (row: number, column: number, mark: string): void => {
    (grid[row] as string[])[column] = mark;
  };
  const allowedRow = scale.row(allowed);
  for (let column = 0; column < WIDTH; column += 2) put(allowedRow, column, '-');
  if (group.interval !== null) {
    const [low, high] = group.interval;
    for (let column = scale.column(low); column <= scale.column(high); column += 1) put(allowedRow, column, '=');
  }
  if (group.capacity !== null) put(allowedRow, scale.column(group.capacity), '|');
  const steps = [...group.steps].sort((a, b) => a.load - b.load);
  for (const step of steps) {
    const fitted = step.exceedance[key]?.fitted;
    if (fitted !== undefined && fitted !== null) put(scale.row(fitted), scale.column(step.load), '.');
  }
  for (const step of steps) {
    const observed = step.exceedance[key]?.observed;
    if (observed !== undefined && observed !== null)
      put(scale.row(observed), scale.column(step.load), MARKS[step.outcome]);
  }
  return grid;
}

/** One group's chart; null when it has no step with a measured share for its binding objective. */
export function formatCapacityChart(
  group: CapacityGroupSummary,
  objectives: readonly CapacityObjectiveSummary[],
): string | null {
  const objective = objectives.find((o) => o.key === group.binding) ?? objectives[0];
  if (objective !== undefined && isServerObjectiveKey(objective.key)) return serverBoundLine(group, objective);
  if (objective === undefined || !group.steps.some((step) => step.exceedance[objective.key])) return null;
  const { key, allowed } = objective;
  const scale = scaleOf(group, key, allowed);
  const grid = plotGrid(group, key, allowed, scale);
  const labels = new Map([
    [scale.row(scale.top), percent(scale.top)],
    [scale.row(allowed), `${percent(allowed)} allowed`],
    [scale.row(0), '0%'],
  ]);
  const labelWidth = Math.max(...[...labels.values()].map((label) => label.length));
  const lines = grid.map((row, i) => `${(labels.get(i) ?? '').padStart(labelWidth)} |${row.join('').trimEnd()}`);
  const axis = Array.from({ length: WIDTH }, () => ' ');
  const ticks = [...new Set(group.steps.map((step) => step.load))].sort((a, b) => a - b);
  let freeFrom = 0;
  for (const load of ticks) {
    const text = loadLabel(load);
    const at = scale.column(load);
    if (at < freeFrom || at + text.length > WIDTH) continue;
    axis.splice(at, text.length, ...text);
    freeFrom = at + text.length + 1;
  }
  const over = key === 'error_rate' ? 'failed requests' : `requests over ${key}'s limit`;
  return [
    `${group.group}: share of ${over}, by load (${group.unit}); o PASS, x FAIL, ? INCONCLUSIVE, . fit, | capacity, = 95% interval`,
    ...lines,
    `${' '.repeat(labelWidth)} +${'-'.repeat(WIDTH)}`,
    `${' '.repeat(labelWidth)}  ${axis.join('').trimEnd()}`,
  ].join('\n');
}

/** The chart of a group its server objective binds: one line (see the file comment). */
function serverBoundLine(group: CapacityGroupSummary, objective: CapacityObjectiveSummary): string {
  const bracket =
    group.last_pass === null || group.first_fail === null
      ? ''
      : ` between ${loadLabel(group.last_pass)} and ${loadLabel(group.first_fail)} ${group.unit}`;
  const knee = group.server_at_knee ? `; the server: ${group.server_at_knee}` : '';
  return `${group.group}: bound by the server, ${serverObjectiveLabel(objective)} over each step, broken${bracket}${knee} (no share of requests to draw)`;
}
