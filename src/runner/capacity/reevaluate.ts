/**
 * `inferbench capacity --reevaluate <dir> --slo ...`: a new SLO answered from a search's stored steps,
 * without sending a request. Every step's stored blocks are replayed through the same sequential tests as
 * online (step-monitor.ts replay), from the same pooled HDR histograms (never averaged percentiles); a step
 * decided online by an overload sign stays FAIL; a step whose blocks run out before the tests decide is
 * INCONCLUSIVE (online it was stopped at its own decision). The capacity and its interval are fitted again.
 */
import { estimateCapacity } from '../../aggregate/capacity/capacity-fit.js';
import type { CapacityObjective } from '../../aggregate/capacity/capacity-slo.js';
import {
  type ServerObjective,
  serverChecks,
  withServerChecks,
  withServerObjectives,
} from '../../aggregate/capacity/server-objective.js';
import type { CapacityStepsFile } from '../../metrics/capacity-summary.js';
import type { CapacitySpec } from '../../profile/resolved-profile.js';
import { StepBlock } from './step-block.js';
import { StepMonitor } from './step-monitor.js';
import type { GroupCapacity } from './run-capacity.js';
import { designEffectFloors as designEffectFloorsOf, stepBlocks } from './search-unit.js';
import type { StepOutcome, StepResult } from './run-step.js';

const NO_HARNESS = {
  event_loop_delay_ms: { p50: 0, p99: 0, max: 0 },
  cpu_utilization: 0,
  schedule_lag_ms: { p50: 0, p99: 0, max: 0 },
  warnings: [],
  client_bottleneck: false,
};

export function reevaluateCapacity(
  file: CapacityStepsFile,
  objectives: readonly CapacityObjective[],
  spec: Pick<CapacitySpec, 'alpha' | 'beta' | 'indifference' | 'blockMs' | 'seed'>,
  serverObjectives: readonly ServerObjective[] = [],
): GroupCapacity[] {
  return file.groups.map((group) => {
    const steps: StepResult[] = [];
    // Each step's tests floored by the design effect of the steps replayed before it, as online.
    for (const stored of group.steps)
      steps.push(replayStep(stored, steps, { objectives, serverObjectives }, spec, group.mode));
    const decided = steps.filter((step) => step.outcome !== 'inconclusive');
    const passes = decided.filter((s) => s.outcome === 'pass').map((s) => s.load);
    const fails = decided.filter((s) => s.outcome === 'fail').map((s) => s.load);
    return {
      group: group.group,
      mode: group.mode,
      unit: group.unit,
      estimate: withServerObjectives(
        estimateCapacity(
          decided.map((step) => stepBlocks(step, objectives)),
          objectives,
          { seed: spec.seed },
        ),
        decided.map((step) => ({ load: step.load, checks: step.serverChecks })),
        serverObjectives,
      ),
      lastPass: passes.length > 0 ? Math.max(...passes) : null,
      firstFail: fails.length > 0 ? Math.min(...fails) : null,
      endReason: 're-evaluated from the stored steps',
      goodputPerS: null,
      calibration: null,
      stepWarmupMs: group.step_warmup_ms ?? null,
      maxStepDurationMs: group.max_step_duration_ms ?? null,
      lowestLoad: null,
      steps,
      searchMs: 0,
    };
  });
}

/**
 * One stored step replayed through the same tests as online (see the file comment), then held to the
 * server objectives from its stored server window as online (a step inconclusive online stays so).
 */
function replayStep(
  stored: CapacityStepsFile['groups'][number]['steps'][number],
  previous: readonly StepResult[],
  slo: { readonly objectives: readonly CapacityObjective[]; readonly serverObjectives: readonly ServerObjective[] },
  spec: Pick<CapacitySpec, 'alpha' | 'beta' | 'indifference' | 'blockMs'>,
  mode: 'rate' | 'concurrency',
): StepResult {
  const { objectives } = slo;
  const designEffectFloors = designEffectFloorsOf(previous, objectives);
  const rampBlocks = stored.ramp_blocks ?? 1;
  const monitor = new StepMonitor({ ...spec, objectives, load: stored.load, mode, designEffectFloors, rampBlocks });
  let outcome: StepOutcome = 'inconclusive';
  let reason = 'undecided on the stored blocks';
  if (stored.outcome === 'inconclusive') reason = `inconclusive online: ${stored.reason}`;
  else if (stored.overload !== null) {
    outcome = 'fail';
    reason = stored.overload;
  } else {
    for (const block of stored.blocks) monitor.replay(StepBlock.restore(block));
    const decision = monitor.decision;
    if (decision !== null) {
      outcome = decision.outcome;
      reason = decision.reason;
    }
  }
  const tests = monitor.testResults();
  const server = stored.server ?? null;
  const checks = serverChecks(server, slo.serverObjectives);
  ({ outcome, reason } = withServerChecks({ outcome, reason, spoiled: stored.outcome === 'inconclusive' }, checks));
  return {
    step: stored.step,
    load: stored.load,
    outcome,
    reason,
    durationMs: 0,
    tests,
    group: null,
    harness: NO_HARNESS,
    blocks: stored.blocks,
    overload: stored.overload,
    rampBlocks,
    server,
    serverChecks: checks,
  };
}

/** capacity-steps.json of a search. */
export function capacityStepsFile(
  runId: string,
  groups: readonly GroupCapacity[],
  summary: Pick<CapacityStepsFile, 'objectives' | 'settings'>,
): CapacityStepsFile {
  return {
    schema_version: 1,
    run_id: runId,
    objectives: summary.objectives,
    settings: summary.settings,
    // A mixed search is stored tier by tier: each tier's share of every step, in its own load.
    groups: groups
      .flatMap((g) => g.members?.map((m) => ({ ...g, group: m.group, steps: m.steps })) ?? [g])
      .map((group) => ({
        group: group.group,
        mode: group.mode,
        unit: group.unit,
        ...(group.stepWarmupMs === null ? {} : { step_warmup_ms: group.stepWarmupMs }),
        ...(group.maxStepDurationMs === null ? {} : { max_step_duration_ms: group.maxStepDurationMs }),
        steps: group.steps.map((step) => ({
          step: step.step,
          load: step.load,
          outcome: step.outcome,
          reason: step.reason,
          overload: step.overload,
          blocks: [...step.blocks],
          ...(step.rampBlocks === 1 ? {} : { ramp_blocks: step.rampBlocks }),
          ...(step.server === null ? {} : { server: step.server }),
        })),
      })),
  };
}
