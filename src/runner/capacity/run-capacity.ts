/**
 * `inferbench capacity`: for every group (scenario x model x tier) of the profile, one after another, the
 * highest load at which every objective of the capacity SLO holds. Open-loop scenarios search the arrival
 * rate (req/s), closed-loop ones the number of streams; the two are never mixed. A group starts from
 * `capacity.start`, or from a calibration probe (one stream for a few seconds: the rate one stream
 * carries); the search planner (aggregate/capacity/capacity-search.ts) probes geometrically and then
 * bisects; every step is decided by sequential tests (run-step.ts); the capacity and its 95% interval come
 * from a monotone fit over all steps (aggregate/capacity/capacity-fit.ts).
 */
import { estimateCapacity, type CapacityEstimate } from '../../aggregate/capacity/capacity-fit.js';
import { CapacitySearch } from '../../aggregate/capacity/capacity-search.js';
import type { CapacityObjective } from '../../aggregate/capacity/capacity-slo.js';
import type { ResolvedGroup, ResolvedProfile, ResolvedScenario } from '../../profile/resolved-profile.js';
import { StepBlock } from './step-block.js';
import { runStep, type StepContext, type StepResult } from './run-step.js';

export interface GroupCapacity {
  readonly group: string;
  readonly mode: 'rate' | 'concurrency';
  /** "req/s" or "streams". */
  readonly unit: string;
  readonly estimate: CapacityEstimate;
  readonly lastPass: number | null;
  readonly firstFail: number | null;
  readonly endReason: string;
  /** Goodput (req/s meeting every SLO) of the highest passing step. */
  readonly goodputPerS: number | null;
  readonly calibration: { readonly e2eMs: number; readonly startLoad: number } | null;
  readonly steps: readonly StepResult[];
  readonly searchMs: number;
}

export interface CapacityEvents {
  onStep?(group: ResolvedGroup, step: StepResult): void;
  onGroupStart?(group: ResolvedGroup, mode: 'rate' | 'concurrency', startLoad: number): void;
}

/** Times a step inconclusive because the harness was its own bottleneck is run again. */
const HARNESS_RETRIES = 3;

function harnessSpoiled(step: StepResult): boolean {
  return step.outcome === 'inconclusive' && step.harness.client_bottleneck;
}

/** Calibration: one stream for this long (or this many requests). */
const CALIBRATION_MS = 4000;
const MIN_RATE = 0.05;

/**
 * `previous` (`--confirm DIR`): group key -> a capacity found before. Such a group starts one resolution
 * below it and steps one resolution ratio at a time, so two steps confirm it (a pass below, a fail above);
 * other outcomes carry on searching from there.
 */
export async function runCapacity(
  context: StepContext,
  events: CapacityEvents = {},
  previous: ReadonlyMap<string, number> = new Map(),
): Promise<GroupCapacity[]> {
  const results: GroupCapacity[] = [];
  for (const group of context.profile.groups) {
    if (context.interrupt.aborted) break;
    results.push(await searchGroup(context, group, events, previous.get(group.key) ?? null));
  }
  return results;
}

async function searchGroup(
  context: StepContext,
  group: ResolvedGroup,
  events: CapacityEvents,
  previous: number | null,
): Promise<GroupCapacity> {
  const started = performance.now();
  const scenario = context.profile.scenarios.find((s) => s.name === group.scenario) as ResolvedScenario;
  const mode = scenario.load.mode;
  const { resolution } = context.spec;
  const calibration =
    mode === 'rate' && context.spec.start === null && previous === null ? await calibrate(context, group) : null;
  const confirmRatio = (1 + resolution) / (1 - resolution);
  const start = previous !== null ? previous * (1 - resolution) : (context.spec.start ?? calibration?.startLoad ?? 1);
  events.onGroupStart?.(group, mode, start);
  const search = new CapacitySearch({
    start: mode === 'concurrency' ? Math.max(1, Math.floor(start)) : start,
    integer: mode === 'concurrency',
    // Confirming: one step each side of the previous capacity is the whole bracket.
    resolution: previous !== null ? confirmRatio - 1 + 1e-9 : resolution,
    maxSteps: context.spec.maxSteps,
    min: mode === 'concurrency' ? 1 : MIN_RATE,
    max: context.spec.maxLoad,
    ...(previous !== null && mode === 'rate' ? { growth: confirmRatio } : {}),
  });
  const steps: StepResult[] = [];
  for (let load = search.next(); load !== null && !context.interrupt.aborted; load = search.next()) {
    let step = await runStep(context, group, load, steps.length + 1);
    // A step spoiled by the harness (a busy machine for a moment) is run again before it ends the search.
    for (let retry = 0; retry < HARNESS_RETRIES && harnessSpoiled(step) && !context.interrupt.aborted; retry++) {
      steps.push(step);
      events.onStep?.(group, step);
      step = await runStep(context, group, load, steps.length + 1);
    }
    steps.push(step);
    events.onStep?.(group, step);
    search.record(load, step.outcome);
  }
  const estimate = estimateCapacity(
    steps.filter((step) => step.outcome !== 'inconclusive').map((step) => stepBlocks(step, context.objectives)),
    context.objectives,
    { seed: context.spec.seed },
  );
  const best = steps.filter((step) => step.outcome === 'pass').sort((a, b) => b.load - a.load)[0];
  return {
    group: group.key,
    mode,
    unit: mode === 'rate' ? 'req/s' : 'streams',
    estimate,
    lastPass: search.lastPass,
    firstFail: search.firstFail,
    endReason: context.interrupt.aborted ? 'interrupted' : (search.endReason ?? 'ended'),
    goodputPerS: best?.group?.throughput.goodput_per_s ?? null,
    calibration,
    steps,
    searchMs: performance.now() - started,
  };
}

/**
 * The blocks of a step as the fit reads them: per objective, each test block's exceedance (ramp-up left
 * out). A step failed by an overload sign (a backlog building, dropped arrivals) exceeds every objective in
 * every block: it was stopped before its latencies could show what the backlog would have done to them.
 */
export function stepBlocks(
  step: Pick<StepResult, 'load' | 'blocks' | 'overload'>,
  objectives: readonly CapacityObjective[],
) {
  const blocks = step.blocks.slice(1).map((stored) => StepBlock.restore(stored));
  const exceedances = (objective: CapacityObjective) => {
    const observed = blocks.map((block) => block.exceedance(objective));
    if (step.overload === null) return observed;
    const overloaded = observed
      .filter((block) => block.total > 0)
      .map((block) => ({ exceeded: block.total, total: block.total }));
    return overloaded.length > 0 ? overloaded : [{ exceeded: 1, total: 1 }];
  };
  return {
    load: step.load,
    blocks: Object.fromEntries(objectives.map((objective) => [objective.key, exceedances(objective)])),
  };
}

/** One stream for a few seconds: the rate one stream carries (1 / mean e2e) is where the search starts. */
async function calibrate(context: StepContext, group: ResolvedGroup): Promise<{ e2eMs: number; startLoad: number }> {
  const closedProfile: ResolvedProfile = {
    ...context.profile,
    scenarios: context.profile.scenarios.map((scenario) =>
      scenario.name === group.scenario
        ? { ...scenario, load: { mode: 'concurrency', concurrency: 1, stages: null } }
        : scenario,
    ),
  };
  const probe = await runStep(
    { ...context, profile: closedProfile, spec: { ...context.spec, stepDurationMs: CALIBRATION_MS } },
    group,
    1,
    0,
  );
  const e2eMs = probe.group?.metrics.e2e_ms?.mean ?? Number.NaN;
  const startLoad =
    Number.isFinite(e2eMs) && e2eMs > 0 ? Math.max(MIN_RATE, Math.round((1000 / e2eMs) * 100) / 100) : 1;
  return { e2eMs, startLoad };
}
