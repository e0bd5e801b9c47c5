/**
 * capacity.csv: the curve of a capacity search, one row per step of every group: offered and achieved
 * load, the outcome and why, latency percentiles (ms), the server's queue time, and per objective the
 * observed exceedance with the monotone fit and its 95% band (as percentages); a server objective
 * (`kv_cache_usage.max`) instead its value over the step and whether it held. With target.server_metrics,
 * the server's concepts of the knee rule per step (`server_waiting_max`, `server_kv_cache_usage_max`, ...,
 * `server_queue_time_p99_ms`, in the concepts' units: aggregate/capacity/server-knee.ts), `knee` marking
 * the last passing and the first failing step, and on both `server_at_knee`, what the server showed from
 * one to the other.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { KNEE_CONCEPTS, kneeSteps, kneeValue } from '../../aggregate/capacity/server-knee.js';
import { isServerObjectiveKey } from '../../aggregate/capacity/server-objective.js';
import type { CapacitySummary } from '../../metrics/capacity-summary.js';

export const CAPACITY_CSV = 'capacity.csv';

const round = (value: number | null | undefined, digits = 3): number | string =>
  value === null || value === undefined || !Number.isFinite(value) ? '' : Number(value.toFixed(digits));
const percent = (value: number | null | undefined): number | string =>
  value === null || value === undefined ? '' : round(value * 100, 4);

/** Whether a server objective held, as a word (csv-stringify writes false as an empty cell). */
const held = (value: boolean | null | undefined): string => (value === true ? 'true' : value === false ? 'false' : '');

export function formatCapacityCsv(capacity: CapacitySummary): string {
  const keys = capacity.objectives.map((objective) => objective.key).filter((key) => !isServerObjectiveKey(key));
  const serverKeys = capacity.objectives.map((objective) => objective.key).filter(isServerObjectiveKey);
  const scraped = capacity.groups.some((group) => group.server_at_knee !== undefined);
  const concepts = scraped ? KNEE_CONCEPTS : [];
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
    ...serverKeys.flatMap((key) => [`${key}_value`, `${key}_held`]),
    // server_waiting_max, server_kv_cache_usage_max, ..., server_queue_time_p99_ms (timeseries.csv's prefix).
    ...concepts.map(
      (concept) =>
        `server_${concept.concept.replace(/^server_/, '')}_${concept.stat}${concept.unit === 'ms' ? '_ms' : ''}`,
    ),
    ...(scraped ? ['knee', 'server_at_knee'] : []),
    'duration_ms',
    'reason',
  ];
  const rows = capacity.groups.flatMap((group) => {
    const knee = kneeSteps(group.steps, group.last_pass, group.first_fail);
    return group.steps.map((step) => {
      const at = step === knee.lastPass ? 'last_pass' : step === knee.firstFail ? 'first_fail' : '';
      return [
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
        ...serverKeys.flatMap((key) => {
          const check = step.server_checks?.find((c) => c.key === key);
          return [round(check?.value, 6), held(check?.held)];
        }),
        ...concepts.map((concept) => round(kneeValue(step.server, concept), 6)),
        ...(scraped ? [at, at === '' ? '' : (group.server_at_knee ?? '')] : []),
        step.duration_ms,
        step.reason,
      ];
    });
  });
  return stringify(rows, { header: true, columns });
}

export async function writeCapacityCsv(dir: string, capacity: CapacitySummary): Promise<string> {
  const path = join(dir, CAPACITY_CSV);
  await writeFile(path, formatCapacityCsv(capacity));
  return path;
}
