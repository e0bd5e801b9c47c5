import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { scheduleUnitCount, scheduleUnits } from '../../../src/runner/schedule-unit.js';
import type { Workload } from '../../../src/runner/runner-deps.js';
import { createMixPicker } from '../../../src/workload/mix-pick.js';

const profile = resolveProfileText(
  `scenarios:
  - name: s
    models: [m1, m2]
    reasoning_efforts: [low, high]
    requests: 10
    seed: 3
    mix: [{ name: a, weight: 1 }, { name: b, weight: 3 }]
  - { name: plain, models: [m1], tiers: [default, flex], requests: 10 }
`,
  'p.yaml',
);

/** Workloads that say which group built the request. */
const workloads = new Map<number, Workload>(
  profile.groups.map((g) => [
    g.index,
    { next: (i: number) => ({ body: { group: g.key, i }, expectedInputTokens: 1 }) },
  ]),
);

describe('schedule units', () => {
  it("puts a mix's classes of one model x effort on one schedule, every other group on its own", () => {
    const [mixed, plain] = profile.scenarios;
    const units = scheduleUnits(
      mixed!,
      profile.groups.filter((g) => g.scenario === 's'),
      workloads,
    );
    expect(units.map((u) => [u.key, u.mixed, u.groups.map((g) => g.key)])).toEqual([
      ['s.low/m1/-', true, ['s.a.low/m1/-', 's.b.low/m1/-']],
      ['s.high/m1/-', true, ['s.a.high/m1/-', 's.b.high/m1/-']],
      ['s.low/m2/-', true, ['s.a.low/m2/-', 's.b.low/m2/-']],
      ['s.high/m2/-', true, ['s.a.high/m2/-', 's.b.high/m2/-']],
    ]);
    const alone = scheduleUnits(
      plain!,
      profile.groups.filter((g) => g.scenario === 'plain'),
      workloads,
    );
    expect(alone.map((u) => [u.key, u.mixed, u.groups.length])).toEqual([
      ['plain/m1/default', false, 1],
      ['plain/m1/flex', false, 1],
    ]);
    expect(alone[1]!.next(7)).toEqual({
      group: alone[1]!.groups[0],
      plan: { body: { group: 'plain/m1/flex', i: 7 }, expectedInputTokens: 1 },
    });
    expect(scheduleUnitCount(profile.groups)).toBe(6);
  });

  it("sends index i to the class the seeded pick gives, built by that class's workload", () => {
    const unit = scheduleUnits(
      profile.scenarios[0]!,
      profile.groups.filter((g) => g.scenario === 's'),
      workloads,
    )[3]!;
    const picker = createMixPicker(3, 's', [0.25, 0.75]);
    for (let i = 0; i < 50; i++) {
      const { group, plan } = unit.next(i);
      const expected = ['s.a.high/m2/-', 's.b.high/m2/-'][picker.pick(i)];
      expect(group.key).toBe(expected);
      expect(unit.groupAt(i).key).toBe(expected);
      expect(plan.body).toEqual({ group: expected, i });
    }
  });
});
