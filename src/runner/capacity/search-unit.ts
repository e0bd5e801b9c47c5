/**
 * What one capacity search moves: a group alone, or with `capacity.mix` a scenario's groups together (its
 * tiers, sharing the target), the total load split by the tiers' weights and every tier held to its own
 * SLO. A mixed step fails when any tier fails and passes when all pass; the fit reads each tier's
 * objectives against the total load, so each tier's own crossing is known too (the tier that breaks first
 * is the binding one), and the unit's capacity is the lowest of them.
 */
import { estimateCapacity, type CapacityEstimate } from '../../aggregate/capacity/capacity-fit.js';
import type { CapacityObjective } from '../../aggregate/capacity/capacity-slo.js';
import { pooledDesignEffect } from '../../aggregate/capacity/design-effect.js';
import { withServerObjectives } from '../../aggregate/capacity/server-objective.js';
import { worstHealth } from '../../aggregate/worst-health.js';
import { InferbenchError } from '../../errors.js';
import type { ResolvedGroup, ResolvedScenario } from '../../profile/resolved-profile.js';
import { capacityObjectives, capacityServerObjectives } from './objectives.js';
import { StepBlock } from './step-block.js';
import { runStepParts, type StepContext, type StepResult, type StepTest } from './run-step.js';
import { refuseTraceReplay } from './refuse-trace.js';
import { refuseConversations } from './refuse-conversation.js';

export interface SearchUnit {
  /** The group's key, or `<scenario>/mix`. */
  readonly key: string;
  readonly scenario: ResolvedScenario;
  readonly mixed: boolean;
  readonly parts: readonly { group: ResolvedGroup; weight: number; objectives: readonly CapacityObjective[] }[];
}

/** A step of a unit: its total load, each part's result, and the parts taken together. */
export interface UnitStep {
  readonly load: number;
  readonly parts: readonly StepResult[];
  readonly combined: StepResult;
}

/** Every group alone, or with `capacity.mix` one unit per scenario of its tiers. */
export function searchUnits(context: StepContext): SearchUnit[] {
  const { profile, spec } = context;
  refuseScenarioMix(profile.scenarios);
  refuseTraceReplay(profile.scenarios);
  refuseConversations(profile.scenarios);
  const scenarioOf = (group: ResolvedGroup) =>
    profile.scenarios.find((s) => s.name === group.scenario) as ResolvedScenario;
  if (spec.mix === null)
    return profile.groups.map((group) => ({
      key: group.key,
      scenario: scenarioOf(group),
      mixed: false,
      parts: [{ group, weight: 1, objectives: context.objectives }],
    }));
  const mix = spec.mix;
  return profile.scenarios.flatMap((scenario) => {
    const groups = profile.groups.filter((group) => group.scenario === scenario.name);
    if (groups.length === 0) return [];
    const parts = groups.map((group) => {
      const member = mix.find((m) => m.tier === group.tier);
      if (member === undefined)
        throw new InferbenchError(
          'BAD_PROFILE',
          `capacity.mix has no weight for ${group.key} (tier ${group.tier ?? 'none'})`,
          {
            hint: `give every tier of scenario ${scenario.name} a weight in capacity.mix, e.g. { ${group.tier ?? 'default'}: { weight: 1 } }`,
          },
        );
      const where = `capacity.mix.${member.tier}.slo`;
      if (member.slo !== null) capacityServerObjectives(member.slo, where, false);
      const objectives = member.slo === null ? context.objectives : capacityObjectives(member.slo, where);
      return { group, weight: member.weight, objectives };
    });
    return [{ key: `${scenario.name}/mix`, scenario, mixed: true, parts }];
  });
}

/**
 * A scenario `mix` runs its classes on one shared arrival process; a capacity step runs one group alone,
 * so a class searched by itself would not be the mix that was asked for.
 */
function refuseScenarioMix(scenarios: readonly ResolvedScenario[]): void {
  const mixed = scenarios.find((scenario) => (scenario.mix?.length ?? 0) > 0);
  if (mixed === undefined) return;
  throw new InferbenchError(
    'BAD_PROFILE',
    `capacity cannot search scenario ${mixed.name}: it has a mix of request classes`,
    {
      hint: 'search each class as a scenario of its own, or measure the mix at given loads with `inferbench run`',
    },
  );
}

/** The total split by weight: a rate proportionally, streams in whole numbers (largest remainder, at least 1). */
export function splitLoad(unit: SearchUnit, total: number): number[] {
  const weights = unit.parts.map((part) => part.weight);
  const sum = weights.reduce((a, b) => a + b, 0);
  if (unit.scenario.load.mode === 'rate') return weights.map((w) => (total * w) / sum);
  const exact = weights.map((w) => (Math.max(total, weights.length) * w) / sum);
  const whole = exact.map((x) => Math.max(1, Math.floor(x)));
  let left = Math.max(total, weights.length) - whole.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    whole[i] = (whole[i] as number) + 1;
    left--;
  }
  return whole;
}

/** A step of a unit at `load`; `previous`: the unit's steps so far (their design effects floor this one's tests). */
export async function runUnitStep(
  context: StepContext,
  unit: SearchUnit,
  load: number,
  step: number,
  previous: readonly UnitStep[] = [],
): Promise<UnitStep> {
  const loads = splitLoad(unit, load);
  const parts = await runStepParts(
    context,
    unit.parts.map((part, i) => ({
      group: part.group,
      load: loads[i] as number,
      objectives: part.objectives,
      designEffectFloors: designEffectFloors(
        previous.map((s) => s.parts[i] as StepResult),
        part.objectives,
      ),
    })),
    step,
  );
  return { load, parts, combined: unit.mixed ? combine(unit, load, step, parts) : (parts[0] as StepResult) };
}

/** A mixed step as one: FAIL when a tier failed, PASS when all passed, INCONCLUSIVE otherwise. */
function combine(unit: SearchUnit, load: number, step: number, parts: readonly StepResult[]): StepResult {
  const named = parts.map((part, i) => ({ part, key: (unit.parts[i] as SearchUnit['parts'][number]).group.key }));
  const failed = named.filter(({ part }) => part.outcome === 'fail');
  const outcome = failed.length > 0 ? 'fail' : parts.every((p) => p.outcome === 'pass') ? 'pass' : 'inconclusive';
  const shown = failed.length > 0 ? failed : named;
  const tests: StepTest[] = named.flatMap(({ part, key }) => part.tests.map((t) => ({ ...t, key: `${key} ${t.key}` })));
  return {
    step,
    load,
    outcome,
    reason: shown.map(({ part, key }) => `${key}: ${part.reason}`).join(' | '),
    durationMs: Math.max(...parts.map((part) => part.durationMs)),
    tests,
    group: (failed[0] ?? named[0])?.part.group ?? null,
    harness: worstHealth(named.map(({ part, key }) => ({ label: key, health: part.harness }))),
    blocks: [],
    rampBlocks: 1,
    overload: failed.find(({ part }) => part.overload !== null)?.part.overload ?? null,
    // The tiers share the server: the window of the part shown.
    server: (failed[0] ?? named[0])?.part.server ?? null,
    serverChecks: (failed[0] ?? named[0])?.part.serverChecks ?? [],
    // Only the first part scraped (run-step.ts).
    serverMetrics: parts[0]?.serverMetrics ?? null,
  };
}

/** The fit of a unit's decided steps; for a mix, every tier's objectives against the total load. */
export function unitEstimate(
  context: StepContext,
  unit: SearchUnit,
  steps: readonly UnitStep[],
): { estimate: CapacityEstimate; members: MixMemberCapacity[] } {
  const decided = steps.filter((step) => step.combined.outcome !== 'inconclusive');
  const keyed = unit.parts.map((part) => ({
    part,
    objectives: part.objectives.map((o) => ({ ...o, key: unit.mixed ? `${part.group.key} ${o.key}` : o.key })),
  }));
  const objectives = keyed.flatMap((k) => k.objectives);
  const stepsBlocks = decided.map((step) => {
    const blocks = keyed.map(
      (k, i) => stepBlocks({ ...(step.parts[i] as StepResult), load: step.load }, k.objectives).blocks,
    );
    return { load: step.load, blocks: Object.assign({}, ...blocks) as ReturnType<typeof stepBlocks>['blocks'] };
  });
  const estimate = withServerObjectives(
    estimateCapacity(stepsBlocks, objectives, { seed: context.spec.seed }),
    decided.map((step) => ({ load: step.load, checks: step.combined.serverChecks })),
    context.serverObjectives ?? [],
  );
  const members = keyed.map((k, i) => {
    const own = k.objectives.map((o) => ({ key: o.key, capacity: estimate.perObjective[o.key] ?? null }));
    const lowest = own.reduce<{ key: string; capacity: number | null } | null>(
      (low, o) =>
        o.capacity !== null && (low === null || low.capacity === null || o.capacity < low.capacity) ? o : low,
      null,
    );
    return {
      group: k.part.group.key,
      weight: k.part.weight,
      capacity: own.some((o) => o.capacity === null) ? null : (lowest?.capacity ?? null),
      censored: own.every((o) => estimate.perObjectiveCensored[o.key] ?? false),
      binding: lowest?.key ?? null,
      steps: steps.map((step) => step.parts[i] as StepResult),
    };
  });
  return { estimate, members };
}

/** One tier of a mixed search: where it breaks its own SLO, in the total load the search moves. */
export interface MixMemberCapacity {
  readonly group: string;
  readonly weight: number;
  readonly capacity: number | null;
  readonly censored: boolean;
  readonly binding: string | null;
  /** Its part of each step, in step order (its own load, outcome and blocks). */
  readonly steps: readonly StepResult[];
}

/**
 * The blocks of a step as the fit reads them: per objective, each test block's exceedance (ramp-up left
 * out). A step failed by an overload sign (a backlog building, dropped arrivals) exceeds every objective in
 * every block: it was stopped before its latencies could show what the backlog would have done to them.
 */
export function stepBlocks(
  step: Pick<StepResult, 'load' | 'blocks' | 'overload'> & { readonly rampBlocks?: number },
  objectives: readonly CapacityObjective[],
) {
  const blocks = step.blocks.slice(step.rampBlocks ?? 1).map((stored) => StepBlock.restore(stored));
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

/**
 * Per objective key: the design effect pooled over the decided steps among `previous` (one part's steps,
 * in order), the floor under the next step's tests. The same function online and in `--reevaluate`, so the
 * stored steps replay to the same decisions.
 */
export function designEffectFloors(
  previous: readonly (Pick<StepResult, 'load' | 'blocks' | 'overload' | 'outcome'> & { rampBlocks?: number })[],
  objectives: readonly CapacityObjective[],
): Record<string, number> {
  const decided = previous
    .filter((step) => step.outcome !== 'inconclusive')
    .map((step) => stepBlocks(step, objectives));
  return Object.fromEntries(
    objectives.map((objective) => [
      objective.key,
      pooledDesignEffect(decided.map((step) => step.blocks[objective.key] ?? [])),
    ]),
  );
}
