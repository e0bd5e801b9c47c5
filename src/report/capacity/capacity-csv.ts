/**
 * capacity.csv: the curve of a capacity search, one row per step of every group: offered and achieved
 * load, the outcome and why, latency percentiles (ms), the server's queue time, and per objective the
 * observed exceedance with the monotone fit and its 95% band (as percentages).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { CapacitySummary } from '../../metrics/capacity-summary.js';

export const CAPACITY_CSV = 'capacity.csv';

const round = (value: number | null | undefined, digits = 3): number | string =>
  value === null || value === undefined || !Number.isFinite(value) ? '' : Number(value.toFixed(digits));
const percent = (value: number | null | undefined): number | string =>
  value === null || value === undefined ? '' : round(value * 100, 4);

export function formatCapacityCsv(capacity: CapacitySummary): string {
  const keys = capacity.objectives.map((objective) => objective.key);
  const columns = [
    'group',
    'step',
    'load',
    'unit',
    'outcome',
    'achieved_per_s',
    'requests',
    'failed',
    'ttft_p50_ms',
    'ttft_p99_ms',
    'itl_p50_ms',
    'itl_p99_ms',
    'e2e_p50_ms',
    'e2e_p99_ms',
    'queue_time_p50_ms',
    ...keys.flatMap((key) => [`${key}_exceeded_pct`, `${key}_fitted_pct`, `${key}_low_pct`, `${key}_high_pct`]),
    'duration_ms',
    'reason',
  ];
  const rows = capacity.groups.flatMap((group) =>
    group.steps.map((step) => [
      group.group,
      step.step,
      round(step.load, 4),
      group.unit,
      step.outcome,
      round(step.achieved_per_s),
      step.requests,
      step.failed,
      round(step.ttft_ms?.p50),
      round(step.ttft_ms?.p99),
      round(step.itl_ms?.p50),
      round(step.itl_ms?.p99),
      round(step.e2e_ms?.p50),
      round(step.e2e_ms?.p99),
      round(step.queue_time_ms_p50),
      ...keys.flatMap((key) => {
        const point = step.exceedance[key];
        return [percent(point?.observed), percent(point?.fitted), percent(point?.low), percent(point?.high)];
      }),
      step.duration_ms,
      step.reason,
    ]),
  );
  return stringify(rows, { header: true, columns });
}

export async function writeCapacityCsv(dir: string, capacity: CapacitySummary): Promise<string> {
  const path = join(dir, CAPACITY_CSV);
  await writeFile(path, formatCapacityCsv(capacity));
  return path;
}
