/**
 * `inferbench capacity`: for every group (scenario x model x tier) of the profile, one after another, the
 * highest load at which every objective of the capacity SLO holds. Open-loop scenarios search the arrival
 * rate (req/s), closed-loop ones the number of streams; the two are never mixed. A group starts from
 * `capacity.start`, or from a calibration probe (one stream for a few seconds: the rate one stream
 * carries); the search planner (aggregate/capacity/capacity-search.ts) probes geometrically and then
 * bisects; every step is decided by sequential tests (run-step.ts); the capacity and its 95% interval come
 * from a monotone fit over all steps (aggregate/capacity/capacity-fit.ts). With `capacity.mix`, a
 * scenario's groups (its tiers) are searched together instead (search-unit.ts): the total load split by
 * weight, every tier against its own SLO, the capacity the highest total at which every tier holds.
 */
import type { CapacityEstimate } from '../../aggregate/capacity/capacity-fit.js';
import { CapacitySearch } from '../../aggregate/capacity/capacity-search.js';
import { stepWarmupMs } from '../../profile/sections/capacity.js';
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
  readonly steps: readonly StepResult[];
  readonly searchMs: number;
  /** `capacity.mix`: each tier's own crossing on the total load, and its part of every step. */
  readonly members?: readonly MixMemberCapacity[];
}

export interface CapacityEvents {
  /** `unit`: the group's key, or `<scenario>/mix` for a mixed search. */
  onStep?(unit: string, step: StepResult): void;
  onGroupStart?(unit: string, mode: 'rate' | 'concurrency', startLoad: number): void;
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
  const started = performance.now();
  const mode = unit.scenario.load.mode;
  const first = unit.parts[0] as SearchUnit['parts'][number];
  const calibration =
    mode === 'rate' && context.spec.start === null && previous === null ? await calibrate(context, first.group) : null;
  const search = plannedSearch(context, unit, previous, calibration?.startLoad ?? null);
  events.onGroupStart?.(unit.key, mode, search.start);
  const steps: UnitStep[] = [];
  for (let load = search.planner.next(); load !== null && !context.interrupt.aborted; load = search.planner.next()) {
    let step = await runUnitStep(context, unit, load, steps.length + 1, steps);
    // A step spoiled by the harness (a busy machine for a moment) is run again before it ends the search.
    for (
      let retry = 0;
      retry < HARNESS_RETRIES && harnessSpoiled(step.combined) && !context.interrupt.aborted;
      retry++
    ) {
      steps.push(step);
      events.onStep?.(unit.key, step.combined);
      step = await runUnitStep(context, unit, load, steps.length + 1, steps);
    }
    steps.push(step);
    events.onStep?.(unit.key, step.combined);
    search.planner.record(load, step.combined.outcome);
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
    steps: steps.map((step) => step.combined),
    searchMs: performance.now() - started,
    ...(unit.mixed ? { members: fit.members } : {}),
  };
}

/** The planner of a unit: from `capacity.start`, the calibration, or one resolution below `previous`. */
function plannedSearch(context: StepContext, unit: SearchUnit, previous: number | null, calibrated: number | null) {
  const mode = unit.scenario.load.mode;
  const { resolution } = context.spec;
  const confirmRatio = (1 + resolution) / (1 - resolution);
  const floor = mode === 'concurrency' ? unit.parts.length : MIN_RATE;
  const wanted = previous !== null ? previous * (1 - resolution) : (context.spec.start ?? calibrated ?? floor);
  const start = mode === 'concurrency' ? Math.max(floor, Math.floor(wanted)) : wanted;
  const planner = new CapacitySearch({
    start,
    integer: mode === 'concurrency',
    // Confirming: one step each side of the previous capacity is the whole bracket.
    resolution: previous !== null ? confirmRatio - 1 + 1e-9 : resolution,
    maxSteps: context.spec.maxSteps,
    min: floor,
    max: context.spec.maxLoad,
    ...(previous !== null && mode === 'rate' ? { growth: confirmRatio } : {}),
  });
  return { planner, start };
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
