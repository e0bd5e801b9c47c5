/**
 * Matrix expansion: each scenario becomes one group per model x tier, keyed "scenario/model/tier" ("-"
 * for no tier, "*" for a model not yet known). Keys are stable across runs: CSV rows, thresholds and
 * `compare` match on them.
 */
import type { ServiceTier } from '../protocol/chat.js';
import type { ResolvedGroup, ResolvedProfile, ResolvedScenario } from './resolved-profile.js';
import { deepFreeze } from './deep-freeze.js';

/** "scenario/model/tier" with "*" for an unresolved model and "-" for no tier. */
export function groupKey(scenario: string, model: string | null, tier: ServiceTier | null): string {
  return `${scenario}/${model ?? '*'}/${tier ?? '-'}`;
}

/** Groups of every scenario, in scenario order, then model, then tier. */
export function expandGroups(scenarios: readonly ResolvedScenario[]): ResolvedGroup[] {
  const groups: ResolvedGroup[] = [];
  for (const scenario of scenarios) {
    const models: (string | null)[] = scenario.models.length > 0 ? [...scenario.models] : [null];
    const tiers: (ServiceTier | null)[] = scenario.tiers.length > 0 ? [...scenario.tiers] : [null];
    for (const model of models) {
      for (const tier of tiers) {
        groups.push({
          index: groups.length,
          scenario: scenario.name,
          model,
          tier,
          key: groupKey(scenario.name, model, tier),
        });
      }
    }
  }
  return groups;
}

/**
 * A new frozen profile in which scenarios without models use `firstModel` (the target's first model from
 * GET /v1/models) and group keys are recomputed. The input is not changed.
 */
export function resolveGroupModels(profile: ResolvedProfile, firstModel: string): ResolvedProfile {
  const scenarios = profile.scenarios.map((scenario) =>
    scenario.models.length > 0 ? scenario : { ...scenario, models: [firstModel] },
  );
  return deepFreeze({ ...profile, scenarios, groups: expandGroups(scenarios) });
}
