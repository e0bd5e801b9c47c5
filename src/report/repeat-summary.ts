/**
 * `run --repeat N`: the aggregate of N identical runs. Per group and key metric the N values, their mean,
 * sample standard deviation, coefficient of variation and a 95% confidence interval of the mean
 * (Student's t), written as repeat-summary.json and shown as a table, so that a user sees how much a
 * number moves between identical runs before trusting a comparison.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GroupSummary, MetricName, MetricStats, RunSummary } from '../metrics/run-summary.js';

export const REPEAT_SUMMARY_JSON = 'repeat-summary.json';

/** The metrics aggregated over repeats: latency percentiles and the group's rates. */
export const REPEAT_METRICS = [
  'ttft_ms.p50',
  'ttft_ms.p99',
  'itl_ms.p50',
  'itl_ms.p99',
  'tpot_ms.p50',
  'e2e_ms.p50',
  'e2e_ms.p99',
  'requests_per_s',
  'output_tokens_per_s',
  'error_rate',
] as const;

export interface RepeatStat {
  /** Runs that had a value. */
  readonly n: number;
  readonly values: readonly number[];
  readonly mean: number;
  /** Sample standard deviation (n - 1); 0 for a single run. */
  readonly stddev: number;
  /** stddev / mean; null when the mean is 0. */
  readonly cv: number | null;
  /** 95% confidence interval of the mean (Student's t); null below two runs. */
  readonly ci95: readonly [number, number] | null;
}

export interface RepeatSummary {
  readonly schema_version: 1;
  readonly profile: string;
  readonly workload_hash: string;
  readonly runs: readonly { readonly run_id: string; readonly dir: string; readonly complete: boolean }[];
  readonly groups: readonly { readonly key: string; readonly metrics: Readonly<Record<string, RepeatStat>> }[];
}

/** Two-sided 95% Student's t critical values for 1..30 degrees of freedom. */
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The t critical value for a 95% interval with `df` degrees of freedom. */
export function tCritical95(df: number): number {
  if (df < 1) return Number.NaN;
  if (df <= 30) return T95[df - 1] as number;
  if (df <= 60) return 2.0;
  if (df <= 120) return 1.98;
  return 1.96;
}

/** Mean, spread and CI of a list of values. */
export function repeatStat(values: readonly number[]): RepeatStat {
  const n = values.length;
  const mean = n ? values.reduce((a, b) => a + b, 0) / n : Number.NaN;
  const stddev = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : 0;
  const half = n > 1 ? (tCritical95(n - 1) * stddev) / Math.sqrt(n) : null;
  return {
    n,
    values,
    mean,
    stddev,
    cv: mean !== 0 && n > 0 ? stddev / Math.abs(mean) : null,
    ci95: half === null ? null : [mean - half, mean + half],
  };
}

function groupValueOf(group: GroupSummary, id: string): number | null {
  if (id === 'error_rate') return group.error_rate;
  if (id === 'requests_per_s' || id === 'output_tokens_per_s') return group.throughput[id];
  const [metric, stat] = id.split('.') as [MetricName, keyof MetricStats];
  const value = group.metrics[metric]?.[stat];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Aggregates N runs of one profile, group by group (matched by key, in the first run's order). */
export function aggregateRepeats(
  runs: readonly { readonly dir: string; readonly summary: RunSummary }[],
): RepeatSummary {
  const first = runs[0]?.summary;
  const keys = first ? first.groups.map((g) => g.key) : [];
  return {
    schema_version: 1,
    profile: first?.profile.name ?? '',
    workload_hash: first?.workload_hash ?? '',
    runs: runs.map((r) => ({ run_id: r.summary.run_id, dir: r.dir, complete: r.summary.complete })),
    groups: keys.map((key) => {
      const metrics: Record<string, RepeatStat> = {};
      for (const id of REPEAT_METRICS) {
        const values: number[] = [];
        for (const run of runs) {
          const group = run.summary.groups.find((g) => g.key === key);
          const value = group ? groupValueOf(group, id) : null;
          if (value !== null) values.push(value);
        }
        if (values.length > 0) metrics[id] = repeatStat(values);
      }
      return { key, metrics };
    }),
  };
}

/** The aggregate as a terminal table: one line per group x metric. */
export function formatRepeatTable(summary: RepeatSummary): string {
  const header = ['group', 'metric', 'runs', 'mean', 'stddev', 'cv', '95% CI of the mean'];
  const rows: string[][] = [];
  for (const group of summary.groups) {
    for (const [id, s] of Object.entries(group.metrics)) {
      rows.push([
        group.key,
        id,
        String(s.n),
        num(s.mean),
        num(s.stddev),
        s.cv === null ? '–' : `${(s.cv * 100).toFixed(1)}%`,
        s.ci95 ? `${num(s.ci95[0])} .. ${num(s.ci95[1])}` : '–',
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i >= 2 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return `${[`${summary.runs.length} runs of ${summary.profile}`, '', line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')}\n`;
}

/** Writes `<dir>/repeat-summary.json` and returns its path. */
export async function writeRepeatSummary(dir: string, summary: RepeatSummary): Promise<string> {
  const path = join(dir, REPEAT_SUMMARY_JSON);
  await writeFile(path, `${JSON.stringify(summary, null, 2)}\n`, 'utf8');
  return path;
}

function num(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  return String(
    Math.round(value * (abs >= 100 ? 10 : abs >= 1 ? 100 : 10000)) / (abs >= 100 ? 10 : abs >= 1 ? 100 : 10000),
  );
}
