/**
 * The terminal answer of `inferbench capacity`: one line per group with its capacity, the 95% interval,
 * the objective that binds, the bracket the search ended in and how long it took; with
 * target.server_metrics, what the server showed from the last pass to the first fail (the reason beside
 * the binding objective); then, with `steps`, the steps with their outcome and reason. Plain aligned text,
 * like the run summary.
 */
import { serverBrief } from '../../aggregate/capacity/server-knee.js';
import { isServerObjectiveKey, serverObjectiveLabel } from '../../aggregate/capacity/server-objective.js';
import type {
  CapacityGroupSummary,
  CapacityObjectiveSummary,
  CapacitySummary,
} from '../../metrics/capacity-summary.js';

const number = (value: number | null): string =>
  value === null ? '-' : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

function capacityCell(group: CapacityGroupSummary): string {
  if (group.capacity === null) return 'none';
  return `${group.censored ? '>= ' : ''}${number(group.capacity)}`;
}

function align(rows: readonly string[][]): string {
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The tiers of a mixed search, under its row: where each breaks its own SLO, in the total load. */
function memberRows(group: CapacityGroupSummary): string[][] {
  return (group.members ?? []).map((m) => [
    `  ${m.group} (weight ${m.weight})`,
    m.capacity === null ? 'none' : `${m.censored ? '>= ' : ''}${number(m.capacity)}`,
    '',
    group.unit,
    m.binding ?? '-',
    '',
    '',
    '',
    '',
  ]);
}

export function formatCapacityTable(capacity: CapacitySummary, options: { steps: boolean }): string {
  const header = ['group', 'capacity', '95% interval', 'unit', 'binding', 'last pass', 'first fail', 'steps', 'time'];
  const rows = capacity.groups.flatMap((group) => [
    [
      group.group,
      capacityCell(group),
      group.interval === null ? '-' : `${number(group.interval[0])} - ${number(group.interval[1])}`,
      group.unit,
      group.binding ?? '-',
      number(group.last_pass),
      number(group.first_fail),
      String(group.steps.length),
      `${(group.search_ms / 1000).toFixed(0)} s`,
    ],
    ...memberRows(group),
  ]);
  const lines = [align([header, ...rows])];
  lines.push(`SLO: ${capacity.objectives.map(sloLabel).join(', ')}`);
  for (const group of capacity.groups) if (group.server_at_knee !== undefined) lines.push(kneeLine(group));
  for (const group of capacity.groups) {
    if (group.below_min)
      lines.push(
        `BELOW min_capacity ${capacity.settings.min_capacity}: ${group.group} (${capacityCell(group)} ${group.unit})`,
      );
    if (!options.steps) continue;
    lines.push('', `${group.group}: ${group.end_reason}`);
    for (const step of group.steps) {
      const server = serverBrief(step.server);
      lines.push(
        `  step ${step.step}  ${number(step.load)} ${group.unit}  ${step.outcome.toUpperCase()}  ${step.reason}${server === '' ? '' : ` [server: ${server}]`}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function sloLabel(o: CapacityObjectiveSummary): string {
  if (o.key === 'error_rate') return `error_rate < ${o.limit * 100}%`;
  if (o.key.startsWith('fluidity_index.')) return `${o.key} >= ${o.limit}`;
  return isServerObjectiveKey(o.key) ? serverObjectiveLabel(o) : `${o.key} < ${o.limit} ms`;
}

/** `<group>: server at the knee (12 pass -> 16 fail req/s): waiting 0 -> 37, KV cache 61% -> 99%`. */
function kneeLine(group: CapacityGroupSummary): string {
  const at =
    group.last_pass === null || group.first_fail === null
      ? ''
      : ` (${number(group.last_pass)} pass -> ${number(group.first_fail)} fail ${group.unit})`;
  const said =
    group.server_at_knee ??
    (group.first_fail === null
      ? 'no step failed'
      : group.last_pass === null
        ? 'no step passed'
        : 'no server window at the last pass or the first fail');
  return `${group.group}: server at the knee${at}: ${said}`;
}
