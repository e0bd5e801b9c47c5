/**
 * A capacity search's results as summary.json tells them (metrics/capacity-summary.ts), and as a run's
 * result (RunResult), so that the run folder, `report` and `compare` work on it as on any run: each
 * group's numbers are those of its highest passing step (its operating point at the capacity; its lowest
 * step when none passed), the harness health the worst of every step.
 */
import { worstHealth } from '../../aggregate/worst-health.js';
import type { CapacityObjective } from '../../aggregate/capacity/capacity-slo.js';
import type { ServerObjective } from '../../aggregate/capacity/server-objective.js';
import { kneeSteps, serverKnee } from '../../aggregate/capacity/server-knee.js';
import { skippedWarning } from '../../aggregate/server-metrics/server-summary.js';
import type {
  CapacityCost,
  CapacityGroupSummary,
  CapacityStepSummary,
  CapacitySummary,
} from '../../metrics/capacity-summary.js';
import type { GroupSummary } from '../../metrics/run-summary.js';
import type { CapacitySpec, ResolvedProfile } from '../../profile/resolved-profile.js';
import type { RunResult } from '../run-profile.js';
import type { ServerMetricsOutcome } from '../server-scraping.js';
import type { ServerEndpointSummary } from '../../metrics/server-summary.js';
import type { GroupCapacity } from './run-capacity.js';
import type { StepResult } from './run-step.js';
import { parseUsd, usdNumber } from '../../util/usd.js';

export function capacitySummary(
  groups: readonly GroupCapacity[],
  objectives: readonly CapacityObjective[],
  spec: CapacitySpec,
  serverObjectives: readonly ServerObjective[] = [],
): CapacitySummary {
  return {
    objectives: [
      ...objectives.map((o) => ({ key: o.key, limit: o.limit, allowed: o.allowed })),
      // A server objective is a bound on each step's window: no share of it is allowed over.
      ...serverObjectives.map((o) => ({ key: o.key, limit: o.limit, allowed: 0 })),
    ],
    settings: {
      resolution: spec.resolution,
      max_steps: spec.maxSteps,
      step_duration_ms: spec.stepDurationMs,
      max_step_duration_ms: spec.maxStepDurationMs,
      step_warmup_ms: spec.stepWarmupMs,
      block_ms: spec.blockMs,
      alpha: spec.alpha,
      beta: spec.beta,
      indifference: spec.indifference,
      min_capacity: spec.minCapacity,
      seed: spec.seed,
    },
    groups: groups.map((group) => groupSummary(group, spec)),
  };
}

function groupSummary(group: GroupCapacity, spec: CapacitySpec): CapacityGroupSummary {
  const { estimate } = group;
  // Streams come whole: the capacity is the most streams at or below the fit's crossing (4.4 -> 4).
  const whole = (value: number | null): number | null =>
    value === null || group.mode !== 'concurrency' ? value : Math.floor(value + 1e-9);
  const capacity = whole(estimate.capacity);
  return {
    group: group.group,
    mode: group.mode,
    unit: group.unit,
    capacity,
    interval:
      estimate.interval === null
        ? null
        : [whole(estimate.interval[0]) as number, whole(estimate.interval[1]) as number],
    censored: estimate.censored,
    binding: estimate.binding,
    per_objective: { ...estimate.perObjective },
    last_pass: group.lastPass,
    first_fail: group.firstFail,
    ...knee(group),
    end_reason: group.endReason,
    goodput_per_s: group.goodputPerS,
    below_min: spec.minCapacity !== null && (capacity === null || capacity < spec.minCapacity),
    calibration:
      group.calibration === null ? null : { e2e_ms: group.calibration.e2eMs, start_load: group.calibration.startLoad },
    step_warmup_ms: group.stepWarmupMs,
    max_step_duration_ms: group.maxStepDurationMs,
    lowest_load: group.lowestLoad,
    search_ms: Math.round(group.searchMs),
    steps: group.steps.map((step) => stepSummary(step, group)),
    ...(group.members === undefined
      ? {}
      : {
          members: group.members.map((m) => ({
            group: m.group,
            weight: m.weight,
            capacity: whole(m.capacity),
            censored: m.censored,
            binding: m.binding,
          })),
        }),
    ...searchCost(group),
  };
}

/**
 * `{ server_at_knee }` when some step was scraped: the server from the last passing step (the latest at the
 * highest passing load) to the first failing one (the first at the lowest failing load).
 */
function knee(group: GroupCapacity): { server_at_knee?: string | null } {
  if (!group.steps.some((step) => step.server !== null)) return {};
  const { lastPass, firstFail } = kneeSteps(group.steps, group.lastPass, group.firstFail);
  return { server_at_knee: serverKnee(lastPass?.server ?? null, firstFail?.server ?? null) };
}

/**
 * `{ cost }` when the group's steps were priced: their total (exact decimals) and, at the highest passing
 * step, the cost per million output tokens and per thousand requests of serving at that load.
 */
function searchCost(group: GroupCapacity): { cost?: CapacityCost } {
  const priced = group.steps.filter((step) => step.group?.cost !== undefined);
  if (priced.length === 0) return {};
  const atto = priced.reduce((sum, step) => sum + (parseUsd(step.group?.cost?.usd ?? 0) ?? 0n), 0n);
  const best = priced.filter((step) => step.outcome === 'pass').sort((a, b) => b.load - a.load)[0];
  const cost = best?.group?.cost;
  return {
    cost: {
      usd: usdNumber(atto),
      at_capacity:
        best === undefined || cost === undefined
          ? null
          : {
              load: best.load,
              per_million_output_tokens: cost.per_million_output_tokens,
              per_thousand_requests: cost.per_thousand_requests,
            },
    },
  };
}

function stepSummary(step: StepResult, group: GroupCapacity): CapacityStepSummary {
  const summary = step.group;
  const pair = (metric: 'ttft_ms' | 'itl_ms' | 'e2e_ms') => {
    const stats = summary?.metrics[metric];
    return stats === undefined ? null : { p50: stats.p50, p99: stats.p99 };
  };
  const exceedance: CapacityStepSummary['exceedance'] = {};
  for (const [key, points] of Object.entries(group.estimate.fitted)) {
    const point = points.find((p) => p.load === step.load);
    exceedance[key] =
      point === undefined ? null : { observed: point.observed, fitted: point.fitted, low: point.low, high: point.high };
  }
  return {
    step: step.step,
    load: step.load,
    outcome: step.outcome,
    reason: step.reason,
    duration_ms: Math.round(step.durationMs),
    achieved_per_s: summary?.throughput.requests_per_s ?? null,
    requests: summary === null ? 0 : summary.requests.ok + summary.requests.failed,
    failed: summary?.requests.failed ?? 0,
    ttft_ms: pair('ttft_ms'),
    itl_ms: pair('itl_ms'),
    e2e_ms: pair('e2e_ms'),
    queue_time_ms_p50: summary?.metrics.queue_time_ms?.p50 ?? null,
    exceedance,
    tests: step.tests.map((test) => ({ ...test })),
    ...(summary?.cost === undefined ? {} : { cost_usd: summary.cost.usd }),
    ...(step.server === null ? {} : { server: step.server }),
    ...(step.serverChecks.length === 0 ? {} : { server_checks: step.serverChecks.map((check) => ({ ...check })) }),
  };
}

/** The search as a run's result: each group at its highest passing step (else its lowest). */
export function capacityRunResult(
  profile: ResolvedProfile,
  groups: readonly GroupCapacity[],
  base: Pick<
    RunResult,
    'workloadHash' | 'startedAtWallMs' | 'endedAtWallMs' | 'complete' | 'interrupted' | 'tokenizer'
  > &
    Partial<Pick<RunResult, 'stopped' | 'workers'>>,
): RunResult {
  const operatingPoints: GroupSummary[] = [];
  for (const group of groups.flatMap((g) => g.members?.map((m) => ({ steps: m.steps })) ?? [g])) {
    const passed = group.steps.filter((step) => step.outcome === 'pass' && step.group !== null);
    const chosen =
      passed.sort((a, b) => b.load - a.load)[0] ??
      [...group.steps].sort((a, b) => a.load - b.load).find((s) => s.group);
    if (chosen?.group) operatingPoints.push(chosen.group);
  }
  const steps = groups.flatMap((group) => group.steps.map((step) => ({ group: group.group, step })));
  const serverMetrics = searchServerMetrics(steps.map(({ step }) => step));
  return {
    ...base,
    ...(serverMetrics === null ? {} : { serverMetrics }),
    profile,
    groups: operatingPoints,
    timeSeries: [],
    harness: worstHealth(
      steps.map(({ group, step }) => ({ label: `${group} step ${step.step}`, health: step.harness })),
    ),
    shard: null,
    startAtWallMs: null,
  };
}

/**
 * The search's scrapes as a run's (summary.json `server_metrics`, and the warnings): each endpoint's
 * counts summed over every step that scraped, its last error the latest step's (`at_s` from that step's
 * start), its slowest scrape the slowest of any step; its failures and skipped ticks each said once with
 * the sums (as aggregate/server-metrics/server-summary.ts says a run's), every other warning once. Null when no step scraped.
 */
export function searchServerMetrics(steps: readonly StepResult[]): ServerMetricsOutcome | null {
  const outcomes = steps.flatMap((step) => (step.serverMetrics ? [step.serverMetrics] : []));
  if (outcomes.length === 0) return null;
  const byUrl = new Map<string, ServerEndpointSummary>();
  for (const endpoint of outcomes.flatMap((outcome) => outcome.endpoints)) {
    const seen = byUrl.get(endpoint.url);
    if (seen === undefined) {
      byUrl.set(endpoint.url, { ...endpoint, failures_by_kind: { ...endpoint.failures_by_kind } });
      continue;
    }
    const kinds = { ...seen.failures_by_kind };
    for (const [kind, count] of Object.entries(endpoint.failures_by_kind)) kinds[kind] = (kinds[kind] ?? 0) + count;
    byUrl.set(endpoint.url, {
      ...seen,
      engine: seen.engine ?? endpoint.engine,
      attempts: seen.attempts + endpoint.attempts,
      scrapes_ok: seen.scrapes_ok + endpoint.scrapes_ok,
      skipped: seen.skipped + endpoint.skipped,
      failures: seen.failures + endpoint.failures,
      failures_by_kind: kinds,
      last_error: endpoint.last_error ?? seen.last_error,
      slowest_ms: slowestOf(seen.slowest_ms, endpoint.slowest_ms),
    });
  }
  const endpoints = [...byUrl.values()];
  // A step's failure count is its own: the search's is the sum, said once per endpoint.
  const failed = endpoints.flatMap((e) => {
    if (e.failures === 0) return [];
    const kinds = Object.entries(e.failures_by_kind)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${n} ${kind}`)
      .join(', ');
    const last = e.last_error === null ? '' : `; last: ${e.last_error.kind}: ${e.last_error.message}`;
    return [
      `server metrics ${e.url}: ${e.failures} of ${e.attempts} scrapes failed over the search's steps (${kinds})${last}; the client's numbers are unaffected`,
    ];
  });
  // Skipped ticks likewise: each step's count is its own.
  const skipped = endpoints.filter((e) => e.skipped > 0).map((e) => skippedWarning(e, true));
  const others = outcomes
    .flatMap((outcome) => outcome.warnings)
    .filter((w) => !w.includes(' scrapes failed (') && !w.includes(' scrape ticks skipped ('));
  return { endpoints, warnings: [...failed, ...skipped, ...new Set(others)] };
}

/** The larger of two steps' slowest scrapes (null or absent: that step had none). */
function slowestOf(a: number | null | undefined, b: number | null | undefined): number | null {
  const known = [a, b].filter((x): x is number => typeof x === 'number');
  return known.length === 0 ? null : Math.max(...known);
}
