/**
 * The profile one capacity step runs: one group alone (its scenario with only its model and tier), at one
 * load, for at most the step's cap (`capMs`: max_step_duration or the search's default), with prompts seeded apart from every other step's (a server that
 * caches prompts must not see the same ones again at the next load). Open loop keeps the scenario's
 * arrival process and a `max_concurrency` high enough that only a server that cannot keep up makes
 * arrivals wait; closed loop runs `load` streams.
 */
import type { LoadSpec, ResolvedGroup, ResolvedProfile, ResolvedScenario } from '../../profile/resolved-profile.js';
import { hashString } from '../../util/rng.js';

/** Open-loop ceiling on requests in flight, per unit of offered rate (and never below 64). */
const IN_FLIGHT_PER_RATE = 30;

/** The load of a step: `load` arrivals per second, or `load` streams. */
export function stepLoad(load: LoadSpec, value: number): LoadSpec {
  if (load.mode === 'concurrency')
    return { mode: 'concurrency', concurrency: Math.max(1, Math.round(value)), stages: null };
  return {
    ...load,
    rate: value,
    stages: null,
    maxConcurrency: Math.max(load.maxConcurrency, 64, Math.ceil(value * IN_FLIGHT_PER_RATE)),
  };
}

export function stepProfile(
  profile: ResolvedProfile,
  group: ResolvedGroup,
  value: number,
  capMs: number,
  step: number,
): ResolvedProfile {
  const scenario = profile.scenarios.find((s) => s.name === group.scenario) as ResolvedScenario;
  const alone: ResolvedScenario = {
    ...scenario,
    models: group.model === null ? [] : [group.model],
    tiers: group.tier === null ? [] : [group.tier],
    // Its effort alone too, so that re-expanding the groups makes this one group again.
    ...(group.reasoningEffort ? { reasoningEfforts: [group.reasoningEffort] } : {}),
    load: stepLoad(scenario.load, value),
    durationMs: capMs,
    requests: null,
    warmupMs: 0,
    warmupRequests: 0,
    seed: (scenario.seed ^ hashString(`capacity step ${step}`)) >>> 0,
  };
  return {
    ...profile,
    scenarios: [alone],
    groups: [{ ...group, index: 0 }],
    thresholds: [],
  };
}
