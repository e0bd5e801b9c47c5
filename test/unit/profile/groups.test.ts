import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { expandGroups, groupKey, resolveGroupModels } from '../../../src/profile/groups.js';

const TEXT = `scenarios:
  - name: a
    models: [m1, m2, m3]
    tiers: [default, flex]
    duration: 1s
  - name: b
    tiers: [auto]
    duration: 1s
  - name: c
    models: [m1]
    duration: 1s
  - name: d
    duration: 1s
`;

describe('matrix expansion', () => {
  const profile = resolveProfileText(TEXT, 'p.yaml');

  it('makes models x tiers groups per scenario, in order', () => {
    expect(profile.groups).toHaveLength(3 * 2 + 1 + 1 + 1);
    expect(profile.groups.map((g) => g.key)).toEqual([
      'a/m1/default',
      'a/m1/flex',
      'a/m2/default',
      'a/m2/flex',
      'a/m3/default',
      'a/m3/flex',
      'b/*/auto',
      'c/m1/-',
      'd/*/-',
    ]);
    expect(profile.groups[7]).toEqual({ index: 7, scenario: 'c', model: 'm1', tier: null, key: 'c/m1/-' });
  });

  it('groupKey uses "*" and "-" for missing model and tier', () => {
    expect(groupKey('s', null, null)).toBe('s/*/-');
    expect(groupKey('s', 'org/model', 'priority')).toBe('s/org/model/priority');
    expect(expandGroups([])).toEqual([]);
  });

  it('resolveGroupModels fills scenarios without models and recomputes keys, leaving the input alone', () => {
    const resolved = resolveGroupModels(profile, 'first-model');
    expect(resolved.groups.map((g) => g.key)).toEqual([
      'a/m1/default',
      'a/m1/flex',
      'a/m2/default',
      'a/m2/flex',
      'a/m3/default',
      'a/m3/flex',
      'b/first-model/auto',
      'c/m1/-',
      'd/first-model/-',
    ]);
    expect(resolved.scenarios.map((s) => s.models)).toEqual([
      ['m1', 'm2', 'm3'],
      ['first-model'],
      ['m1'],
      ['first-model'],
    ]);
    expect(resolved.groups[8]).toEqual({
      index: 8,
      scenario: 'd',
      model: 'first-model',
      tier: null,
      key: 'd/first-model/-',
    });
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.scenarios[1]!.models)).toBe(true);
    expect(profile.groups[8]!.key).toBe('d/*/-');
    expect(profile.scenarios[3]!.models).toEqual([]);
    // Scenarios that had models are the same objects (nothing else changed).
    expect(resolved.scenarios[0]).toBe(profile.scenarios[0]);
  });
});
