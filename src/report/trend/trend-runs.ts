/**
 * The trend of many runs of one profile (one per commit): the runs in order, per group and compared
 * metric the value in every run, and between each run and the next the verdict `compare` gives that pair
 * (compare-runs.ts, the same tolerances, tests and Holm correction: one comparison, never a second one).
 * A change point is a neighbour pair whose verdict is `regression` or `improved`: a significant change
 * beyond tolerance between one run and the next. Pure given loaded runs.
 */
import { InferbenchError } from '../../errors.js';
import { compareRuns } from '../compare/compare-runs.js';
import type {
  CompareInput,
  CompareOptions,
  CompareResult,
  MetricComparison,
  Verdict,
} from '../compare/compare-runs.js';

/** How runs are put in order: by their summary's `started_at` (ties keep the given order), or as given. */
export type TrendOrder = 'time' | 'given';

export interface TrendOptions extends CompareOptions {
  readonly order?: TrendOrder;
}

/** One run of the trend, in order. */
export interface TrendRun {
  /** 1-based position in the trend (the x of the charts). */
  readonly position: number;
  /** How the trend names it: its `--label`, else its commit's first 7 characters, else its run_id. */
  readonly name: string;
  readonly runId: string;
  readonly label: string | null;
  readonly commit: string | null;
  readonly startedAt: string;
  readonly dir: string;
  /** The run's own doubts: incomplete, its client its own bottleneck. */
  readonly warnings: readonly string[];
}

/** The kinds of change point: a neighbour verdict of regression or improved. */
export type ChangeKind = 'regression' | 'improvement';

/** One group's compared metric over every run. */
export interface TrendSeries {
  readonly group: string;
  /** `ttft_ms.p99` or a group value such as `error_rate`, as compare names it. */
  readonly metricId: string;
  readonly unit: string;
  readonly lowerIsBetter: boolean;
  /** Per run, in order: the value compare read (null when the run has none). */
  readonly values: readonly (number | null)[];
  /** Per run, in order: compare's verdict of this run against the one before (null for the first run). */
  readonly steps: readonly (MetricComparison | null)[];
}

export interface ChangePoint {
  readonly group: string;
  readonly metricId: string;
  /** The position of the run where the change shows (the candidate of its pair). */
  readonly position: number;
  readonly kind: ChangeKind;
  readonly comparison: MetricComparison;
}

export interface TrendResult {
  readonly runs: readonly TrendRun[];
  readonly series: readonly TrendSeries[];
  readonly changePoints: readonly ChangePoint[];
  readonly alpha: number;
  readonly correction: CompareResult['correction'];
  /** Per neighbour pair (index i: run i+1 against run i+2): what compare warned of or overrode with --force. */
  readonly pairNotes: readonly { readonly position: number; readonly notes: readonly string[] }[];
}

/** The change point a verdict makes, or null. */
export function changeKindOf(verdict: Verdict): ChangeKind | null {
  if (verdict === 'regression') return 'regression';
  if (verdict === 'improved') return 'improvement';
  return null;
}

/** The name a trend gives a run: `--label`, else the commit's first 7 characters (as git shows it), else the run id. */
export function trendRunName(input: Pick<CompareInput, 'summary'>): string {
  const { label, commit, run_id: runId } = input.summary;
  if (label) return label;
  if (commit) return commit.slice(0, 7);
  return runId;
}

/** The runs in trend order: by started_at (a stable sort keeps the given order of ties), or as given. */
export function orderRuns<T extends Pick<CompareInput, 'summary'>>(inputs: readonly T[], order: TrendOrder): T[] {
  if (order === 'given') return [...inputs];
  return [...inputs].sort((a, b) => Date.parse(a.summary.started_at) - Date.parse(b.summary.started_at));
}

/** Builds the trend of at least two runs. Throws BAD_USAGE with fewer, and compare's BAD_RESULTS on runs that differ. */
export function buildTrend(inputs: readonly CompareInput[], options: TrendOptions = {}): TrendResult {
  if (inputs.length < 2)
    throw new InferbenchError('BAD_USAGE', `trend needs at least two runs; it was given ${inputs.length}.`, {
      hint: 'Pass several run folders, or a folder whose subfolders are run folders (downloaded artifacts).',
    });
  const ordered = orderRuns(inputs, options.order ?? 'time');
  const { order: _order, ...compareOptions } = options;
  const pairs = ordered.slice(1).map((candidate, i) => {
    const baseline = ordered[i] as CompareInput;
    try {
      return compareRuns(baseline, candidate, compareOptions);
    } catch (error) {
      if (error instanceof InferbenchError)
        throw new InferbenchError(
          error.code,
          `runs ${i + 1} (${trendRunName(baseline)}) and ${i + 2} (${trendRunName(candidate)}): ${error.message}`,
          { cause: error, ...(error.hint === undefined ? {} : { hint: error.hint }) },
        );
      throw error;
    }
  });
  const runs = ordered.map((input, i) => toTrendRun(input, i + 1, pairs));
  const series = collectSeries(pairs, ordered.length);
  const changePoints: ChangePoint[] = [];
  for (const s of series) {
    s.steps.forEach((step, i) => {
      const kind = step === null ? null : changeKindOf(step.verdict);
      if (step !== null && kind !== null)
        changePoints.push({ group: s.group, metricId: s.metricId, position: i + 1, kind, comparison: step });
    });
  }
  changePoints.sort((a, b) => a.position - b.position);
  const first = pairs[0] as CompareResult;
  return {
    runs,
    series,
    changePoints,
    alpha: first.alpha,
    correction: first.correction,
    pairNotes: pairs.map((pair, i) => ({
      position: i + 2,
      notes: [
        ...(pair.forced ? pair.mismatches.map((m) => `--force: ${m}`) : []),
        ...(pair.candidateInvalid.length > 0 ? [`not valid evidence: ${pair.candidateInvalid.join('; ')}`] : []),
      ],
    })),
  };
}

function toTrendRun(input: CompareInput, position: number, pairs: readonly CompareResult[]): TrendRun {
  // The run's own warnings, as compare stated them when the run was the candidate (or the first baseline).
  const pair = position === 1 ? pairs[0] : pairs[position - 2];
  const role = position === 1 ? 'the baseline' : 'the candidate';
  const warnings = (pair?.warnings ?? [])
    .filter((w) => w.startsWith(`${role} run`))
    .map((w) => `this run${w.slice(`${role} run`.length)}`);
  return {
    position,
    name: trendRunName(input),
    runId: input.summary.run_id,
    label: input.summary.label ?? null,
    commit: input.summary.commit ?? null,
    startedAt: input.summary.started_at,
    dir: input.dir,
    warnings,
  };
}

/**
 * Every (group, metric) any pair compared, in the order compare lists them, with its value per run: a run's
 * value is what compare read of it as the candidate, or (the first run, or a run whose candidate side had
 * no partner) as the baseline of the next pair.
 */
function collectSeries(pairs: readonly CompareResult[], runCount: number): TrendSeries[] {
  const byKey = new Map<
    string,
    { head: MetricComparison; values: (number | null)[]; steps: (MetricComparison | null)[] }
  >();
  pairs.forEach((pair, i) => {
    for (const c of pair.comparisons) {
      const key = `${c.group}\u0000${c.metricId}`;
      let entry = byKey.get(key);
      if (entry === undefined) {
        entry = {
          head: c,
          values: Array.from({ length: runCount }, () => null),
          steps: Array.from({ length: runCount }, () => null),
        };
        byKey.set(key, entry);
      }
      entry.steps[i + 1] = c;
      entry.values[i + 1] = c.candidate;
      if (entry.values[i] === null) entry.values[i] = c.baseline;
    }
  });
  return [...byKey.values()].map(({ head, values, steps }) => ({
    group: head.group,
    metricId: head.metricId,
    unit: head.unit,
    lowerIsBetter: head.lowerIsBetter,
    values,
    steps,
  }));
}
