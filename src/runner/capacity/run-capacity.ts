/**
 * `inferbench capacity`: for every group (scenario x model x tier) of the profile, one after another, the
 * highest load at which every objective of the capacity SLO holds. Open-loop scenarios search the arrival
 * rate (req/s), closed-loop ones the number of streams; the two are never mixed. A group starts from
 * `capacity.start`, or from a calibration probe (one stream for a few seconds: the rate one stream
 * carries); the search planner (aggregate/capacity/capacity-search.ts) probes geometrically and then
 * bisects; every step is decided by sequential tests (run-step.ts) within its cap, max_step_duration or
 * its default, and no load is run at which the SLO's tests could not decide within it (the search's
 * lowest load, and its start, are raised to the lowest that can: aggregate/capacity/step-length.ts); a
 * step undecided at its cap is a ceiling the search goes on under; the capacity and its 95% interval come
 * from a monotone fit over all steps (aggregate/capacity/capacity-fit.ts). With `capacity.mix`, a
 * scenario's groups (its tiers) are searched together instead (search-unit.ts): the total load split by
 * weight, every tier against its own SLO, the capacity the highest total at which every tier holds.
 */
import { InferbenchError } from '../../errors.js';
import type { CapacityEstimate } from '../../aggregate/capacity/capacity-fit.js';
import { CapacitySearch } from '../../aggregate/capacity/capacity-search.js';
import {
  CALIBRATION_MS,
  ceilTo3Digits,
  defaultStepCapMs,
  HARNESS_RETRIES,
  lowestDecidablePerS,
  slowestObjective,
} from '../../aggregate/capacity/step-length.js';
import { stepRampBlocks, stepWarmupMs } from '../../profile/sections/capacity.js';
import type { ResolvedGroup, ResolvedProfile } from '../../profile/resolved-profile.js';
import { runStep, type StepContext, type StepResult } from './run-step.js';
import {
  type MixMemberCapacity,
  runUnitStep,
  searchUnits,
  unitEstimate,
  type SearchUnit,
  type UnitStep,
} from './search-unit.js';

export type { MixMemberCapacity } from './search-unit.js';
export { stepBlocks } from './search-unit.js';

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
  /** The untested start of each of its steps (profile/sections/capacity.ts stepWarmupMs); null: not known. */
  readonly stepWarmupMs: number | null;
  /** The cap its steps had (max_step_duration, or the default computed for its start); null: not known. */
  readonly maxStepDurationMs: number | null;
  /** The lowest load the search would run (its SLO's tests can decide there within the cap); null: not known. */
  readonly lowestLoad: number | null;
  readonly steps: readonly StepResult[];
  readonly searchMs: number;
  /** `capacity.mix`: each tier's own crossing on the total load, and its part of every step. */
  readonly members?: readonly MixMemberCapacity[];
}

export interface CapacityEvents {
  /** `unit`: the group's key, or `<scenario>/mix` for a mixed search. */
  onStep?(unit: string, step: StepResult): void;
  /** `capMs`: the longest a step runs undecided; `raised`: why the start was raised, or null. */
  onGroupStart?(
    unit: string,
    mode: 'rate' | 'concurrency',
    startLoad: number,
    limits: { readonly capMs: number; readonly raised: string | null },
  ): void;
}

function harnessSpoiled(step: StepResult): boolean {
  return step.outcome === 'inconclusive' && step.harness.client_bottleneck;
}

const MIN_RATE = 0.05;

/**
 * `previous` (`--confirm DIR`): unit key -> a capacity found before. Such a unit starts one resolution
 * below it and steps one resolution ratio at a time, so two steps confirm it (a pass below, a fail above);
 * other outcomes carry on searching from there.
 */
export async function runCapacity(
  context: StepContext,
  events: CapacityEvents = {},
  previous: ReadonlyMap<string, number> = new Map(),
): Promise<GroupCapacity[]> {
  const results: GroupCapacity[] = [];
  for (const unit of searchUnits(context)) {
    if (context.interrupt.aborted) break;
    results.push(await searchUnit(context, unit, events, previous.get(unit.key) ?? null));
  }
  return results;
}

async function searchUnit(
  context: StepContext,
  unit: SearchUnit,
  events: CapacityEvents,
  previous: number | null,
): Promise<GroupCapacity> {
  const clock = context.run.env.clock;
  const started = clock.nowMs();
  const mode = unit.scenario.load.mode;
  const first = unit.parts[0] as SearchUnit['parts'][number];
  // A rate search starts from the probe; a stream search with the default cap needs its e2e to size it.
  const probe =
    previous === null && ((mode === 'rate' && context.spec.start === null) || context.spec.maxStepDurationMs === null);
  const calibration = probe ? await calibrate(context, first.group) : null;
  const search = plannedSearch(context, unit, previous, calibration);
  events.onGroupStart?.(unit.key, mode, search.start, { capMs: search.capMs, raised: search.raised });
  const steps: UnitStep[] = [];
  const stepContext: StepContext = { ...context, stepCapMs: search.capMs };
  for (let load = search.planner.next(); load !== null && !context.interrupt.aborted; load = search.planner.next()) {
    let step = await runUnitStep(stepContext, unit, load, steps.length + 1, steps);
    // A step spoiled by the harness (a busy machine for a moment) is run again before it ends the search.
    for (
      let retry = 0;
      retry < HARNESS_RETRIES && harnessSpoiled(step.combined) && !context.interrupt.aborted;
      retry++
    ) {
      steps.push(step);
      events.onStep?.(unit.key, step.combined);
      step = await runUnitStep(stepContext, unit, load, steps.length + 1, steps);
    }
    steps.push(step);
    events.onStep?.(unit.key, step.combined);
    search.planner.record(load, plannerOutcome(step.combined));
  }
  const fit = unitEstimate(context, unit, steps);
  const best = steps.filter((step) => step.combined.outcome === 'pass').sort((a, b) => b.load - a.load)[0];
  return {
    group: unit.key,
    mode,
    unit: mode === 'rate' ? 'req/s' : 'streams',
    estimate: fit.estimate,
    lastPass: search.planner.lastPass,
    firstFail: search.planner.firstFail,
    endReason: context.interrupt.aborted ? 'interrupted' : (search.planner.endReason ?? 'ended'),
    goodputPerS: best === undefined ? null : sumGoodput(best.parts),
    calibration,
    stepWarmupMs: stepWarmupMs(context.spec, unit.scenario.warmupMs),
    maxStepDurationMs: search.capMs,
    lowestLoad: search.lowest,
    steps: steps.map((step) => step.combined),
    searchMs: clock.nowMs() - started,
    ...(unit.mixed ? { members: fit.members } : {}),
  };
}

/**
 * A step's outcome as the planner reads it: INCONCLUSIVE because the harness was its own bottleneck (or
 * the search was stopped) cannot be judged; otherwise its tests ran to the cap undecided, a ceiling.
 */
function plannerOutcome(step: StepResult): 'pass' | 'fail' | 'undecided' | 'inconclusive' {
  if (step.outcome !== 'inconclusive') return step.outcome;
  return step.harness.client_bottleneck || step.reason === 'interrupted' ? 'inconclusive' : 'undecided';
}

/**
 * The planner of a unit, from `capacity.start`, the calibration, or one resolution below `previous`; the
 * cap of its steps (max_step_duration, or the default sized for its start); and its lowest load: the
 * lowest at which every objective of every part can decide within the cap (aggregate/capacity
 * step-length.ts), known for rates, and for streams when the calibration measured an e2e.
 */
function plannedSearch(
  context: StepContext,
  unit: SearchUnit,
  previous: number | null,
  calibration: { readonly e2eMs: number; readonly startLoad: number } | null,
) {
  const { spec } = context;
  const mode = unit.scenario.load.mode;
  const { resolution } = spec;
  const confirmRatio = (1 + resolution) / (1 - resolution);
  const floor = mode === 'concurrency' ? unit.parts.length : MIN_RATE;
  const wanted = previous !== null ? previous * (1 - resolution) : (spec.start ?? calibration?.startLoad ?? floor);
  const e2eMs =
    calibration !== null && Number.isFinite(calibration.e2eMs) && calibration.e2eMs > 0 ? calibration.e2eMs : null;
  // Requests per second a total load gives its thinnest part (weights split it): null when not known.
  const weights = unit.parts.map((part) => part.weight);
  const thinnest = Math.min(...weights) / weights.reduce((a, b) => a + b, 0);
  const perS = (load: number): number | null =>
    mode === 'rate' ? load * thinnest : e2eMs === null ? null : (load * thinnest * 1000) / e2eMs;
  const untestedMs = stepRampBlocks(stepWarmupMs(spec, unit.scenario.warmupMs), spec.blockMs) * spec.blockMs;
  const startPerS = perS(Math.max(floor, wanted));
  const capMs =
    spec.maxStepDurationMs ??
    (startPerS === null ? spec.stepDurationMs : defaultStepCapMs(spec, startPerS, untestedMs, spec.blockMs));
  const objectives = unit.parts.flatMap((part) => part.objectives);
  const lowestPerS = lowestDecidablePerS(objectives, spec, capMs, untestedMs, spec.blockMs);
  if (lowestPerS === Number.POSITIVE_INFINITY)
    throw new InferbenchError(
      'BAD_PROFILE',
      `capacity.max_step_duration ${capMs / 1000} s leaves no time for the tests of ${unit.key}: its untested start (${untestedMs / 1000} s: the first block and the step warmup) and its last block (${spec.blockMs / 1000} s) take the whole step`,
      {
        hint: `make capacity.max_step_duration at least ${(untestedMs + 2 * spec.blockMs) / 1000} s, or shorten capacity.step_warmup`,
      },
    );
  const unitPerS = perS(1);
  let lowest: number | null = null;
  if (unitPerS !== null && unitPerS > 0) {
    const exact = Math.min(spec.maxLoad, lowestPerS / unitPerS);
    lowest = mode === 'concurrency' ? Math.ceil(exact - 1e-9) : ceilTo3Digits(exact);
  }
  const min = Math.max(floor, lowest ?? floor);
  const slowest = slowestObjective(objectives, spec);
  const raised =
    min > floor && slowest !== null
      ? `${min} is the lowest load at which ${slowest.key} can decide within a step of ${capMs / 1000} s (${slowest.requests} requests after its untested ${untestedMs / 1000} s)`
      : null;
  const start = mode === 'concurrency' ? Math.max(min, Math.floor(wanted)) : Math.max(min, wanted);
  const planner = new CapacitySearch({
    start,
    integer: mode === 'concurrency',
    // Confirming: one step each side of the previous capacity is the whole bracket.
    resolution: previous !== null ? confirmRatio - 1 + 1e-9 : resolution,
    maxSteps: spec.maxSteps,
    min,
    max: Math.max(min, spec.maxLoad),
    ...(raised === null ? {} : { minNote: `${raised}: the capacity is below it` }),
    ...(previous !== null && mode === 'rate' ? { growth: confirmRatio } : {}),
  });
  return { planner, start, capMs, lowest, raised: start > wanted && raised !== null ? raised : null };
}

function sumGoodput(parts: readonly StepResult[]): number | null {
  const values = parts.map((part) => part.group?.throughput.goodput_per_s ?? null);
  return values.some((value) => value === null) ? null : values.reduce((sum: number, value) => sum + (value ?? 0), 0);
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
  // One stream: in this thread, whatever --workers says.
  const probe = await runStep(
    { ...context, profile: closedProfile, stepCapMs: CALIBRATION_MS, workers: null },
    group,
    1,
    0,
  );
  const e2eMs = probe.group?.metrics.e2e_ms?.mean ?? Number.NaN;
  const startLoad =
    Number.isFinite(e2eMs) && e2eMs > 0 ? Math.max(MIN_RATE, Math.round((1000 / e2eMs) * 100) / 100) : 1;
  return { e2eMs, startLoad };
}
