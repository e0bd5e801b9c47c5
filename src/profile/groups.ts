/**
 * Matrix expansion: each scenario becomes one group per model x tier x reasoning effort x mix class, keyed
 * "scenario[.class][.effort]/model/tier" ("-" for no tier, "*" for a model not yet known). Keys are
 * stable across runs: CSV rows, thresholds and `compare` match on them. The classes of one model x tier x
 * effort come next to each other: they share one schedule (runner/schedule-unit.ts).
 */
import type { ReasoningEffort, ServiceTier } from '../protocol/chat.js';
import type { ResolvedGroup, ResolvedProfile, ResolvedScenario } from './resolved-profile.js';
import { deepFreeze } from './deep-freeze.js';

/** "scenario/model/tier" with "*" for an unresolved model and "-" for no tier. */
export function groupKey(scenario: string, model: string | null, tier: ServiceTier | null): string {
  return `${scenario}/${model ?? '*'}/${tier ?? '-'}`;
}

/** The first part of a group key: "scenario", "scenario.class", "scenario.effort" or "scenario.class.effort". */
export function groupHead(scenario: string, mixClass: string | null, effort: ReasoningEffort | null): string {
  return [scenario, mixClass, effort].filter((part) => part !== null).join('.');
}

/** Groups of every scenario, in scenario order, then model, tier, effort and mix class. */
export function expandGroups(scenarios: readonly ResolvedScenario[]): ResolvedGroup[] {
  const groups: ResolvedGroup[] = [];
  for (const scenario of scenarios) {
    const models: (string | null)[] = scenario.models.length > 0 ? [...scenario.models] : [null];
    const tiers: (ServiceTier | null)[] = scenario.tiers.length > 0 ? [...scenario.tiers] : [null];
    const efforts: (ReasoningEffort | null)[] = scenario.reasoningEfforts?.length
      ? [...scenario.reasoningEfforts]
      : [null];
    const classes: (string | null)[] = scenario.mix?.length ? scenario.mix.map((c) => c.name) : [null];
    for (const model of models) {
      for (const tier of tiers) {
        for (const effort of efforts) {
          for (const mixClass of classes) {
            groups.push({
              index: groups.length,
              scenario: scenario.name,
              model,
              tier,
              key: groupKey(groupHead(scenario.name, mixClass, effort), model, tier),
              // Only when used, so the groups of profiles without them stay what they were.
              ...(mixClass === null ? {} : { mixClass }),
              ...(effort === null ? {} : { reasoningEffort: effort }),
            });
          }
        }
      }
    }
  }
  return groups;
}

/**
 * A new frozen profile in which scenarios without models use `firstModel` (the target's first model from
 * GET /v1/models) and group keys are recomputed. The input is not changed. A scenario with a `models:`
 * selector is left alone: its models come from the selector (profile/sections/models.ts), never the first one.
 */
export function resolveGroupModels(profile: ResolvedProfile, firstModel: string): ResolvedProfile {
  const scenarios = profile.scenarios.map((scenario) =>
    scenario.models.length > 0 || scenario.modelSelector !== undefined
      ? scenario
      : { ...scenario, models: [firstModel] },
  );
  return deepFreeze({ ...profile, scenarios, groups: expandGroups(scenarios) });
}
