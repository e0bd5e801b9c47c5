/**
 * The comparison of two runs: groups matched by key, per metric the baseline and candidate values, the
 * absolute and relative change, a significance test and a verdict. A regression is a change that is
 * statistically significant AND worse than the metric's tolerance. A comparison runs dozens of tests
 * (groups x metrics), so by default the p-values are adjusted with Holm's method: the chance that a run
 * with no real change fails CI stays below alpha for the whole comparison, not for each test. Pure given
 * loaded data.
 *
 * The server's side (target.server_metrics) of both runs is shown beside the verdicts as context
 * (compare-server.ts): it never decides one.
 *
 * Two runs are comparable when they sent the same workload (workload hash, models, tiers); their targets
 * may differ (comparing two deployments is what compare is for) and are reported side by side. Groups are
 * matched by key, or by `--pair` across model names, checked then on the hash without model names.
 */
import { invalidEvidence } from '../../aggregate/run-validity.js';
import { InferbenchError } from '../../errors.js';
import { ANSWER_CHECK_NAMES } from '../../metrics/check-summary.js';
import type { GroupSummary, MetricName, MetricStats, RunSummary } from '../../metrics/run-summary.js';
import { matchGroups, resolvePairs } from './group-pairs.js';
import type { GroupPair } from './group-pairs.js';
import { sameTarget, targetOf } from './target-label.js';
import type { TargetRef } from './target-label.js';
import { compareServers } from './compare-server.js';
import type { ServerComparison } from './compare-server.js';
import { decodeHistogram } from '../html/histogram-series.js';
import { lowerIsBetter as isLowerBetter, metricDefinition, metricUnit } from '../../metrics/metric-registry.js';
import type { RequestValues } from './load-run.js';
import { mannWhitneyU, toWeighted, twoProportionTest } from './mann-whitney.js';
import { fisherExact, quantileTest } from './quantile-test.js';
import type { WeightedValue } from '../html/histogram-series.js';
import { DEFAULT_TOLERANCES, describeTolerance, parseMetricId, resolveTolerances } from './tolerance.js';
import type { Tolerance } from './tolerance.js';
import { GROUP_VALUES as GROUP_VALUE_READERS } from '../../aggregate/thresholds.js';

/**
 * `not_called`: a regression beyond tolerance the candidate's own client may explain (its client was its own
 * bottleneck and the change is within the delay it added, or its group dropped arrivals at max_concurrency,
 * so it did not send the load compared): neither a regression nor a pass.
 */
export type Verdict = 'regression' | 'not_called' | 'improved' | 'within_tolerance' | 'not_significant' | 'no_data';

export interface MetricComparison {
  /** The baseline group's key. */
  readonly group: string;
  /** The candidate group's key: `group` unless the groups were paired with --pair. */
  readonly candidateGroup: string;
  /** `ttft_ms.p99` or a group value such as `error_rate`. */
  readonly metricId: string;
  readonly unit: string;
  readonly lowerIsBetter: boolean;
  readonly baseline: number | null;
  readonly candidate: number | null;
  /** candidate - baseline. */
  readonly absoluteChange: number | null;
  /** (candidate - baseline) / baseline; null when the baseline is 0 or missing. */
  readonly relativeChange: number | null;
  /** Two-sided p-value of this test alone; null when no test applies (run-level rates). */
  readonly pValue: number | null;
  /** pValue adjusted for the number of tests (Holm), or equal to pValue with correction `none`. */
  readonly pAdjusted: number | null;
  /** Which test gave pValue. */
  readonly test: string;
  readonly tolerance: string;
  readonly verdict: Verdict;
  /** One sentence on why, for JUnit failure messages and the terminal. */
  readonly reason: string;
}

export interface RunRef {
  readonly runId: string;
  readonly dir: string;
  readonly profile: string;
  /** Where the run sent its requests (credentials stripped). */
  readonly target: TargetRef;
}

export interface CompareResult {
  readonly baseline: RunRef;
  readonly candidate: RunRef;
  readonly alpha: number;
  readonly correction: Correction;
  /** False when the runs went to different targets (two deployments): shown, never a refusal. */
  readonly sameTarget: boolean;
  /** The --pair flags, checked: these groups were compared with each other across model names. */
  readonly pairs: readonly GroupPair[];
  /** Ways the two runs' workloads differ (workload hash, models, tiers, groups). */
  readonly mismatches: readonly string[];
  /** True when mismatches were overridden with --force. */
  readonly forced: boolean;
  /** Reasons to trust the numbers less: an incomplete run, a client that was its own bottleneck. */
  readonly warnings: readonly string[];
  readonly comparisons: readonly MetricComparison[];
  readonly regressions: number;
  /**
   * Why the candidate is not valid evidence (aggregate/run-validity.ts: its client was its own bottleneck,
   * or it dropped arrivals at its own cap); empty when it is. Its regressions that the client may explain
   * are `not_called`, not counted in `regressions` (exit 5 when they are all there is).
   */
  readonly candidateInvalid: readonly string[];
  /** Regressions not called (verdict `not_called`). */
  readonly notCalled: number;
  /**
   * The server side of both runs (target.server_metrics) per paired group: context, never a verdict (it
   * changes neither `regressions` nor the exit code). Absent when neither run scraped.
   */
  readonly server?: ServerComparison;
}

export interface CompareInput {
  readonly dir: string;
  readonly summary: RunSummary;
  /** Per-request values from requests.csv, or null when the run has none. */
  readonly requests: RequestValues | null;
}

export interface CompareOptions {
  /** Significance level (default 0.05). */
  readonly alpha?: number;
  /** `--tolerance` flags (id -> value), over the baseline profile's and the defaults. */
  readonly tolerances?: Readonly<Record<string, string>>;
  /** Proceed despite workload mismatches. */
  readonly force?: boolean;
  /** Multiple-testing correction of the p-values (default holm). */
  readonly correction?: Correction;
  /** `--pair baseline_group=candidate_group` flags; a key that is no group of its run is BAD_USAGE. */
  readonly pairs?: readonly string[];
}

export type Correction = 'holm' | 'none';

/** Relative tolerances on latencies never flag a change smaller than this (ms). */
export const MIN_LATENCY_CHANGE_MS = 0.5;

/** The tolerances a comparison uses: defaults, then the baseline profile's `compare.tolerances`, then flags. */
export function effectiveTolerances(
  baseline: RunSummary,
  flags: Readonly<Record<string, string>> = {},
): Map<string, Tolerance> {
  return resolveTolerances([
    { origin: 'default tolerances', entries: DEFAULT_TOLERANCES },
    {
      origin: `compare.tolerances of the baseline profile "${baseline.profile.name}"`,
      entries: profileTolerances(baseline),
    },
    { origin: '--tolerance', entries: flags },
  ]);
}

function profileTolerances(summary: RunSummary): Record<string, string> {
  const resolved = summary.profile.resolved as { compare?: { tolerances?: unknown } } | null | undefined;
  const tolerances = resolved?.compare?.tolerances;
  if (!tolerances || typeof tolerances !== 'object') return {};
  return Object.fromEntries(Object.entries(tolerances as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}

/**
 * Ways two runs differ in what they sent; empty when they are comparable. Targets are not compared:
 * comparing two deployments sent the same workload is what compare is for. With `pairs`, paired groups
 * may differ in model name only, and the workload hash is checked without model names.
 */
export function workloadMismatches(
  baseline: RunSummary,
  candidate: RunSummary,
  pairs: readonly GroupPair[] = [],
): string[] {
  const out: string[] = [];
  const baseWithoutModels = baseline.workload_hash_without_models ?? null;
  const candWithoutModels = candidate.workload_hash_without_models ?? null;
  const short = (hash: string): string => `${hash.slice(0, 12)}…`;
  if (baseline.workload_hash !== candidate.workload_hash) {
    if (pairs.length === 0) {
      const onlyNames = baseWithoutModels !== null && baseWithoutModels === candWithoutModels;
      out.push(
        `workload hash differs: ${short(baseline.workload_hash)} vs ${short(candidate.workload_hash)}${onlyNames ? ' (the same requests, to models named differently)' : ''}`,
      );
    } else if (baseWithoutModels === null || candWithoutModels === null) {
      const older = baseWithoutModels === null ? 'baseline' : 'candidate';
      out.push(
        `workload hash differs, and the ${older} run's summary.json has no workload_hash_without_models (an older inferbench wrote it), so --pair cannot check that the same requests were sent`,
      );
    } else if (baseWithoutModels !== candWithoutModels) {
      out.push(
        `workload hash without model names differs: ${short(baseWithoutModels)} vs ${short(candWithoutModels)} (not only the model names differ)`,
      );
    }
  }
  const set = (s: RunSummary, f: (g: GroupSummary) => string): string =>
    [...new Set(s.groups.map(f))].sort().join(', ');
  const tiers = [set(baseline, (g) => g.tier ?? '-'), set(candidate, (g) => g.tier ?? '-')];
  if (tiers[0] !== tiers[1]) out.push(`tiers differ: [${tiers[0]}] vs [${tiers[1]}]`);
  if (pairs.length === 0) {
    const models = [set(baseline, (g) => g.model), set(candidate, (g) => g.model)];
    if (models[0] !== models[1]) out.push(`models differ: [${models[0]}] vs [${models[1]}]`);
    const keys = [set(baseline, (g) => g.key), set(candidate, (g) => g.key)];
    if (keys[0] !== keys[1] && models[0] === models[1] && tiers[0] === tiers[1])
      out.push(`groups differ: [${keys[0]}] vs [${keys[1]}]`);
    return out;
  }
  const baseGroups = new Map(baseline.groups.map((g) => [g.key, g]));
  const candGroups = new Map(candidate.groups.map((g) => [g.key, g]));
  for (const pair of pairs) {
    const b = baseGroups.get(pair.baseline);
    const c = candGroups.get(pair.candidate);
    if (!b || !c) continue;
    if (b.scenario !== c.scenario)
      out.push(
        `--pair ${pair.baseline}=${pair.candidate}: scenarios differ (${b.scenario} vs ${c.scenario}); a pair may differ in model name only`,
      );
    if ((b.tier ?? '-') !== (c.tier ?? '-'))
      out.push(
        `--pair ${pair.baseline}=${pair.candidate}: tiers differ (${b.tier ?? '-'} vs ${c.tier ?? '-'}); a pair may differ in model name only`,
      );
  }
  const matched = matchGroups([...baseGroups.keys()], [...candGroups.keys()], pairs);
  const partnered = new Set(matched.values());
  const lonelyBase = [...baseGroups.keys()].filter((k) => !matched.has(k));
  const lonelyCand = [...candGroups.keys()].filter((k) => !partnered.has(k));
  if (lonelyBase.length > 0 || lonelyCand.length > 0) {
    out.push(
      `groups without a partner after --pair: baseline [${lonelyBase.join(', ')}], candidate [${lonelyCand.join(', ')}]`,
    );
  }
  return out;
}

/** Compares two loaded runs. Throws BAD_RESULTS (exit 2) on workload mismatches unless `force`. */
export function compareRuns(
  baseline: CompareInput,
  candidate: CompareInput,
  options: CompareOptions = {},
): CompareResult {
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1))
    throw new InferbenchError('BAD_USAGE', `--alpha ${alpha} must be between 0 and 1.`, {
      hint: 'The usual significance level is 0.05.',
    });
  const baselineKeys = baseline.summary.groups.map((g) => g.key);
  const candidateKeys = candidate.summary.groups.map((g) => g.key);
  const pairs = resolvePairs(options.pairs ?? [], baselineKeys, candidateKeys);
  const mismatches = workloadMismatches(baseline.summary, candidate.summary, pairs);
  if (mismatches.length > 0 && !options.force) {
    throw new InferbenchError(
      'BAD_RESULTS',
      `The runs did not send the same workload, so comparing them would mislead:\n  ${mismatches.join('\n  ')}`,
      {
        hint: refusalHint(mismatches, pairs, baselineKeys, candidateKeys),
      },
    );
  }
  const tolerances = effectiveTolerances(baseline.summary, options.tolerances);
  const candidateGroups = new Map(candidate.summary.groups.map((g) => [g.key, g]));
  const partners = matchGroups(baselineKeys, candidateKeys, pairs);
  const measured: Measured[] = [];
  for (const base of baseline.summary.groups) {
    const partner = partners.get(base.key);
    const cand = partner === undefined ? undefined : candidateGroups.get(partner);
    if (!cand) continue;
    for (const [metricId, tolerance] of tolerances) {
      if (tolerance.kind === 'off') continue;
      measured.push(measureMetric(base, cand, metricId, tolerance, baseline.requests, candidate.requests));
    }
  }
  if (measured.length === 0) {
    // A verdict of "no regression" over nothing compared would pass CI while checking nothing.
    throw new InferbenchError(
      'BAD_RESULTS',
      'The two runs have no group (scenario/model/tier) in common, or every tolerance is off: there is nothing to compare.',
      {
        hint: 'Compare two runs of the same profile; `inferbench validate <profile>` lists its group keys.',
      },
    );
  }
  const correction = options.correction ?? 'holm';
  const adjusted = correction === 'holm' ? holmAdjust(measured.map((m) => m.pValue)) : measured.map((m) => m.pValue);
  const clientDoubt = candidateDoubt(candidate.summary);
  const comparisons = measured.map((m, i) =>
    holdIfClientMay(judge(m, adjusted[i] ?? null, alpha, correction), clientDoubt),
  );
  const baselineRef = refOf(baseline);
  const candidateRef = refOf(candidate);
  const server = compareServers(baseline.summary, candidate.summary, partners);
  return {
    baseline: baselineRef,
    candidate: candidateRef,
    alpha,
    correction,
    sameTarget: sameTarget(baselineRef.target, candidateRef.target),
    pairs,
    mismatches,
    forced: mismatches.length > 0,
    warnings: [...runWarnings('baseline', baseline.summary), ...runWarnings('candidate', candidate.summary)],
    comparisons,
    regressions: comparisons.filter((c) => c.verdict === 'regression').length,
    candidateInvalid: invalidEvidence(candidate.summary),
    notCalled: comparisons.filter((c) => c.verdict === 'not_called').length,
    ...(server === null ? {} : { server }),
  };
}

function refusalHint(
  mismatches: readonly string[],
  pairs: readonly GroupPair[],
  baselineKeys: readonly string[],
  candidateKeys: readonly string[],
): string {
  const force = 'or pass --force to compare the groups they share anyway (with a warning).';
  const namesOnly = mismatches.some(
    (m) =>
      m.startsWith('models differ') ||
      m.includes('models named differently') ||
      m.startsWith('groups without a partner'),
  );
  if (namesOnly) {
    return (
      `If the two servers name the same model differently (vLLM's \`llama\`, SGLang's \`llama-3\`), pair the groups with ` +
      `--pair <baseline group>=<candidate group> (repeatable; baseline groups: ${baselineKeys.join(', ')}; candidate groups: ${candidateKeys.join(', ')}), ${force}`
    );
  }
  if (mismatches.some((m) => m.includes('an older inferbench')))
    return `Rerun the older run with this version of inferbench, ${force}`;
  if (pairs.length > 0)
    return `Paired groups may differ in model name only: run the same profile against both targets, ${force}`;
  return `Compare runs of the same profile (their targets may differ), ${force}`;
}

function runWarnings(role: string, summary: RunSummary): string[] {
  const out: string[] = [];
  if (!summary.complete) out.push(`the ${role} run is incomplete (interrupted or stopped early)`);
  if (summary.harness?.client_bottleneck)
    out.push(
      `the ${role} run's client may have been its own bottleneck: ${summary.harness.warnings.join('; ') || 'see its report'}`,
    );
  return out;
}

function refOf(input: CompareInput): RunRef {
  return {
    runId: input.summary.run_id,
    dir: input.dir,
    profile: input.summary.profile.name,
    target: targetOf(input.summary),
  };
}

function groupValue(group: GroupSummary, metric: string, stat: string | null): number | null {
  if (stat === null) {
    // Read as thresholds read it (error_rate, throughput, answer-check pass rates).
    const read = (GROUP_VALUE_READERS as Record<string, ((g: GroupSummary) => number | null) | undefined>)[metric];
    const value = read ? read(group) : null;
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  }
  const stats = group.metrics[metric as MetricName];
  const value = stats ? stats[stat as keyof MetricStats] : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function significance(
  base: GroupSummary,
  cand: GroupSummary,
  metric: string,
  stat: string | null,
  baseRequests: RequestValues | null,
  candRequests: RequestValues | null,
): { p: number | null; test: string } {
  const baseCounts = proportionCounts(base, metric);
  const candCounts = proportionCounts(cand, metric);
  if (baseCounts !== null && candCounts !== null) return proportionTest(baseCounts, candCounts);
  if (stat === null) return { p: null, test: 'none (one value per run)' };
  // requests.csv has a column per request for every metric but itl_ms (pooled per gap: histograms only).
  const column = metricDefinition(metric)?.csvColumn ?? undefined;
  const baseValues = column ? baseRequests?.get(base.key)?.get(column) : undefined;
  const candValues = column ? candRequests?.get(cand.key)?.get(column) : undefined;
  if (baseValues && candValues && baseValues.length > 0 && candValues.length > 0) {
    return testSamples(toWeighted(baseValues), toWeighted(candValues), stat, 'requests.csv');
  }
  const baseHistogram = decodeHistogram(base.histograms[metric as MetricName], metric);
  const candHistogram = decodeHistogram(cand.histograms[metric as MetricName], metric);
  if (baseHistogram && candHistogram)
    return testSamples(baseHistogram.buckets, candHistogram.buckets, stat, 'histograms');
  return { p: null, test: 'none (no samples)' };
}

/** A rate's two counts: the outcomes it counts (failed requests, failed checks) and the others. */
interface ProportionCounts {
  readonly failed: number;
  readonly passed: number;
}

/**
 * The counts behind a rate that is a proportion of a group's requests or checks: error_rate (failed vs ok
 * requests) and the answer-check pass rates (failed vs passed checks, metrics/check-summary.ts); null for
 * any other value, and for a pass rate of a group whose answers were not checked.
 */
function proportionCounts(group: GroupSummary, metric: string): ProportionCounts | null {
  if (metric === 'error_rate') return { failed: group.requests.failed, passed: group.requests.ok };
  const check = ANSWER_CHECK_NAMES.find((name) => metric === `${name}_pass_rate`);
  const stats = check === undefined ? undefined : group.checks?.[check];
  return stats === undefined ? null : { failed: stats.failed, passed: stats.passed };
}

/** Fisher's exact test up to 20,000 outcomes in all, the two-proportion z-test beyond (its normal approximation holds). */
function proportionTest(base: ProportionCounts, cand: ProportionCounts): { p: number; test: string } {
  const n1 = base.failed + base.passed;
  const n2 = cand.failed + cand.passed;
  if (n1 + n2 <= 20_000)
    return { p: fisherExact(base.failed, base.passed, cand.failed, cand.passed), test: "Fisher's exact test" };
  return { p: twoProportionTest(base.failed, n1, cand.failed, n2).p, test: 'two-proportion z-test' };
}

const PERCENTILE_OF_STAT: Record<string, number> = { p50: 50, p90: 90, p95: 95, p99: 99, p999: 99.9 };

/** Percentiles get the quantile test (about that tail); mean, min and max get Mann-Whitney (about the whole distribution). */
function testSamples(
  base: readonly WeightedValue[],
  cand: readonly WeightedValue[],
  stat: string,
  source: string,
): { p: number; test: string } {
  const percentile = PERCENTILE_OF_STAT[stat];
  if (percentile !== undefined) {
    const result = quantileTest(base, cand, percentile);
    const at =
      result.testedPercentile === percentile
        ? stat
        : `p${Math.round(result.testedPercentile * 10) / 10} (too few samples for ${stat})`;
    return { p: result.p, test: `quantile test at ${at} (${source})` };
  }
  return { p: mannWhitneyU(base, cand).p, test: `Mann-Whitney U (${source})` };
}

/** Holm's step-down adjustment of p-values (nulls are not tests and stay null). */
export function holmAdjust(pValues: readonly (number | null)[]): (number | null)[] {
  const tested = pValues
    .map((p, i) => ({ p, i }))
    .filter((e): e is { p: number; i: number } => e.p !== null)
    .sort((a, b) => a.p - b.p);
  const out: (number | null)[] = pValues.map(() => null);
  const m = tested.length;
  let running = 0;
  tested.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

/** A comparison before its verdict (which needs every test's p-value for the correction). */
type Measured = Omit<MetricComparison, 'verdict' | 'reason' | 'pAdjusted'> & {
  readonly worseBeyond: boolean;
  readonly betterBeyond: boolean;
  readonly hasData: boolean;
};

function measureMetric(
  base: GroupSummary,
  cand: GroupSummary,
  metricId: string,
  tolerance: Tolerance,
  baseRequests: RequestValues | null,
  candRequests: RequestValues | null,
): Measured {
  const parsed = parseMetricId(metricId);
  const { metric, stat } = typeof parsed === 'string' ? { metric: metricId, stat: null } : parsed;
  const unit = metric === 'error_rate' ? '' : metricUnit(metric);
  const lowerIsBetter = isLowerBetter(metric);
  const baseline = groupValue(base, metric, stat);
  const candidate = groupValue(cand, metric, stat);
  const common = {
    group: base.key,
    candidateGroup: cand.key,
    metricId,
    unit,
    lowerIsBetter,
    baseline,
    candidate,
    tolerance: describeTolerance(tolerance, unit),
  };
  if (baseline === null || candidate === null) {
    return {
      ...common,
      absoluteChange: null,
      relativeChange: null,
      pValue: null,
      test: 'none',
      worseBeyond: false,
      betterBeyond: false,
      hasData: false,
    };
  }
  const absoluteChange = candidate - baseline;
  const relativeChange = baseline !== 0 ? absoluteChange / Math.abs(baseline) : null;
  const { p, test } = significance(base, cand, metric, stat, baseRequests, candRequests);
  const worseBy = lowerIsBetter ? absoluteChange : -absoluteChange;
  const beyond = (amount: number): boolean => {
    if (amount <= 0) return false;
    // Below half a millisecond a latency change is scheduling noise of the machine, whatever its percentage.
    if (tolerance.kind === 'relative' && unit === 'ms' && amount < MIN_LATENCY_CHANGE_MS) return false;
    if (tolerance.kind === 'relative') return baseline === 0 ? true : amount / Math.abs(baseline) > tolerance.fraction;
    if (tolerance.kind === 'absolute') return amount > tolerance.amount;
    return false;
  };
  return {
    ...common,
    absoluteChange,
    relativeChange,
    pValue: p,
    test,
    worseBeyond: beyond(worseBy),
    betterBeyond: beyond(-worseBy),
    hasData: true,
  };
}

function judge(m: Measured, pAdjusted: number | null, alpha: number, correction: Correction): MetricComparison {
  const { worseBeyond, betterBeyond, hasData, ...rest } = m;
  const base = { ...rest, pAdjusted };
  if (!hasData || m.baseline === null || m.candidate === null) {
    return {
      ...base,
      verdict: 'no_data',
      reason: `${m.metricId}: no value in the ${m.baseline === null ? 'baseline' : 'candidate'}`,
    };
  }
  // Run-level rates have no per-request sample: the tolerance alone decides for them.
  const significant = pAdjusted === null || pAdjusted < alpha;
  const change = `${fmtNumber(m.baseline)} -> ${fmtNumber(m.candidate)}${m.unit ? ` ${m.unit}` : ''} (${m.relativeChange === null ? 'n/a' : `${m.relativeChange >= 0 ? '+' : ''}${(m.relativeChange * 100).toFixed(1)}%`})`;
  const pText = pAdjusted === null ? 'no test' : `p=${formatP(pAdjusted)}${correction === 'holm' ? ' (Holm)' : ''}`;
  if (worseBeyond && significant) {
    return {
      ...base,
      verdict: 'regression',
      reason: `${m.metricId} regressed: ${change}, beyond tolerance ${m.tolerance}, ${pText} < ${alpha}`,
    };
  }
  if (betterBeyond && significant)
    return { ...base, verdict: 'improved', reason: `${m.metricId} improved: ${change}, ${pText}` };
  if (worseBeyond || betterBeyond) {
    return {
      ...base,
      verdict: 'not_significant',
      reason: `${m.metricId} changed ${change} but not significantly (${pText} >= ${alpha})`,
    };
  }
  return { ...base, verdict: 'within_tolerance', reason: `${m.metricId} within tolerance ${m.tolerance}: ${change}` };
}

/** What of the candidate's own doubts bears on its regressions. */
interface CandidateDoubt {
  /**
   * Its client was its own bottleneck: the most it may have added to a latency (event-loop delay p99 +
   * schedule lag p99, in ms; infinite when not measured); null when it was not.
   */
  readonly clientDelayMs: number | null;
  /** Its groups that dropped arrivals at max_concurrency: the load compared was not the load sent. */
  readonly droppedGroups: ReadonlySet<string>;
  /** Its groups' mean output tokens: a per-token time spreads the client's delay over them. */
  readonly outputTokens: ReadonlyMap<string, number>;
}

function candidateDoubt(summary: RunSummary): CandidateDoubt {
  const harness = summary.harness;
  const delay = harness.event_loop_delay_ms.p99 + harness.schedule_lag_ms.p99;
  return {
    clientDelayMs: harness.client_bottleneck ? (Number.isFinite(delay) ? delay : Number.POSITIVE_INFINITY) : null,
    droppedGroups: new Set(summary.groups.filter((g) => g.requests.dropped > 0).map((g) => g.key)),
    outputTokens: new Map(summary.groups.map((g) => [g.key, g.metrics.output_tokens?.mean ?? Number.NaN])),
  };
}

/**
 * A regression the candidate's client may explain is not called: its group dropped arrivals, or its client
 * was its own bottleneck and the change is a latency no larger than the delay the client may have added
 * (or not a latency: a slow client also lowers throughput). A latency that grew by more than that delay is
 * the target's, and stays a regression.
 */
function holdIfClientMay(c: MetricComparison, doubt: CandidateDoubt): MetricComparison {
  if (c.verdict !== 'regression') return c;
  if (doubt.droppedGroups.has(c.candidateGroup))
    return {
      ...c,
      verdict: 'not_called',
      reason: `${c.reason}; not called: the candidate dropped arrivals at max_concurrency, so it did not send the load compared`,
    };
  if (doubt.clientDelayMs === null) return c;
  const delay = clientDelayOn(c, doubt, doubt.clientDelayMs);
  const change = c.absoluteChange ?? Number.NaN;
  if (c.unit === 'ms' && c.lowerIsBetter && change > delay) return c;
  const bound = Number.isFinite(delay) ? `up to ${fmtNumber(delay)} ms` : 'an unmeasured delay';
  return {
    ...c,
    verdict: 'not_called',
    reason: `${c.reason}; not called: the candidate's client was its own bottleneck (it may have added ${bound}${c.unit === 'ms' ? '' : ' to every request, and lowered its rates'})`,
  };
}

/**
 * The most a client delayed by `delayMs` may have added to the metric: all of it to a latency from the
 * start (TTFT, E2E) or to a gap between chunks (ITL); to TPOT, (E2E - TTFT) / (tokens - 1), a delay at
 * either end spread over the tokens: 2 x delay / (tokens - 1).
 */
function clientDelayOn(c: MetricComparison, doubt: CandidateDoubt, delayMs: number): number {
  if (!c.metricId.startsWith('tpot_ms')) return delayMs;
  const tokens = doubt.outputTokens.get(c.candidateGroup) ?? Number.NaN;
  return tokens > 2 ? (2 * delayMs) / (tokens - 1) : delayMs;
}

/** A p-value for people: 3 significant digits, "<1e-6" below that. */
export function formatP(p: number): string {
  if (p < 1e-6) return '<1e-6';
  return p >= 0.001 ? p.toFixed(3) : p.toExponential(1);
}

function fmtNumber(value: number): string {
  const abs = Math.abs(value);
  return String(
    Math.round(value * (abs >= 100 ? 10 : abs >= 1 ? 100 : 10000)) / (abs >= 100 ? 10 : abs >= 1 ? 100 : 10000),
  );
}
