/**
 * A schedule unit: what one schedule (one arrival process, or one set of closed-loop users) feeds. Without
 * a mix that is one group. With a scenario `mix`, it is every class group of one model x tier x effort:
 * each arrival (or each next request of a closed-loop user) takes the next workload index, the index picks
 * its class (workload/mix-pick.ts), and the class's group builds and measures the request. Dropped arrivals
 * take an index too, so a drop counts against the class that arrival would have been.
 */
import type { ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';
import { groupHead, groupKey } from '../profile/groups.js';
import { createMixPicker } from '../workload/mix-pick.js';
import type { Workload, WorkloadRequest } from './runner-deps.js';

export interface ScheduleUnit {
  /** Seeds the unit's arrivals: the group's key, or for a mix its key without the class. */
  readonly key: string;
  /** The groups it feeds, in profile order (one without a mix). */
  readonly groups: readonly ResolvedGroup[];
  /** True for a mix: every arrival, dropped ones included, takes a workload index. */
  readonly mixed: boolean;
  /** The group of workload index `index`. */
  groupAt(index: number): ResolvedGroup;
  /** The group and request of workload index `index`. */
  next(index: number): { readonly group: ResolvedGroup; readonly plan: WorkloadRequest };
}

/** The units of a scenario's groups: each group alone, or a mix's classes per model x tier x effort. */
export function scheduleUnits(
  scenario: ResolvedScenario,
  groups: readonly ResolvedGroup[],
  workloads: ReadonlyMap<number, Workload>,
): ScheduleUnit[] {
  const byUnit = new Map<string, ResolvedGroup[]>();
  for (const group of groups) {
    const key = unitKey(group);
    const members = byUnit.get(key);
    if (members) members.push(group);
    else byUnit.set(key, [group]);
  }
  const mix = scenario.mix ?? [];
  const picker =
    mix.length > 0
      ? createMixPicker(
          scenario.seed,
          scenario.name,
          mix.map((c) => c.share),
        )
      : null;
  return [...byUnit].map(([key, members]) => {
    // The class at each position of the mix (a group missing from `groups` is never picked: none is).
    const byClass = mix.map((c) => members.find((g) => g.mixClass === c.name) ?? (members[0] as ResolvedGroup));
    const groupAt =
      picker === null
        ? () => members[0] as ResolvedGroup
        : (index: number) => byClass[picker.pick(index)] as ResolvedGroup;
    return {
      key,
      groups: members,
      mixed: picker !== null,
      groupAt,
      next(index) {
        const group = groupAt(index);
        return { group, plan: (workloads.get(group.index) as Workload).next(index) };
      },
    };
  });
}

/** Groups of one unit share this key: their own key, the class left out. */
function unitKey(group: ResolvedGroup): string {
  if ((group.mixClass ?? null) === null) return group.key;
  return groupKey(groupHead(group.scenario, null, group.reasoningEffort ?? null), group.model, group.tier);
}

/** How many schedules a scenario's groups run on (connections and planned requests count per unit). */
export function scheduleUnitCount(groups: readonly ResolvedGroup[]): number {
  return new Set(groups.map(unitKey)).size;
}
