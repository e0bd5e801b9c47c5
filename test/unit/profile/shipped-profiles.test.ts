import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProfile } from '../../../src/profile/load-profile.js';

const PROFILES = resolve(import.meta.dirname, '../../../profiles');
const SHIPPED = [
  'quickstart',
  'tier-comparison',
  'model-comparison',
  'open-loop-poisson',
  'ramp',
  'ci-regression',
  'trace-replay',
  'images',
  'all-models',
];

/** Wall time a scenario can take at most: its duration (or an estimate for request counts) plus warmup. */
function plannedSeconds(name: string): number {
  const profile = loadProfile(resolve(PROFILES, `${name}.yaml`));
  return profile.scenarios.reduce((sum, s) => sum + (s.durationMs ?? 5000) / 1000 + s.warmupMs / 1000, 0);
}

describe('shipped profiles', () => {
  for (const name of SHIPPED) {
    it(`${name}.yaml is valid, documented, points editors at the schema and stays short`, () => {
      const path = resolve(PROFILES, `${name}.yaml`);
      const text = readFileSync(path, 'utf8');
      const lines = text.split('\n');
      expect(lines[0]).toBe('# yaml-language-server: $schema=../schema/profile.schema.json');
      expect(lines.slice(1, 4).join('\n')).toMatch(new RegExp(`# ${name}: `));
      const profile = loadProfile(path);
      expect(profile.name).toBe(name);
      expect(profile.target.baseUrl).toBeNull();
      expect(profile.groups.length).toBeGreaterThan(0);
      expect(plannedSeconds(name)).toBeLessThanOrEqual(20);
    });
  }

  it("uses ids of the emulator's built-in catalog, priority only on the dedicated endpoint", () => {
    const known = new Set([
      'small-fast-8b',
      'large-70b',
      'reasoner-120b',
      'thinker-32b',
      'vision-17b',
      'ep-large-70b-dedicated',
    ]);
    for (const name of SHIPPED) {
      const profile = loadProfile(resolve(PROFILES, `${name}.yaml`));
      for (const group of profile.groups) {
        if (group.model !== null) expect(known.has(group.model), `${name}: ${group.model}`).toBe(true);
        if (group.tier === 'priority') expect(group.model).toBe('ep-large-70b-dedicated');
      }
    }
    const tiers = loadProfile(resolve(PROFILES, 'tier-comparison.yaml'));
    expect(tiers.groups.map((g) => g.tier)).toEqual(['priority', 'default', 'flex']);
  });

  it('ci-regression is deterministic: a request count, fixed lengths, temperature 0, thresholds, slo and tolerances', () => {
    const profile = loadProfile(resolve(PROFILES, 'ci-regression.yaml'));
    const s = profile.scenarios[0]!;
    expect(s.requests).not.toBeNull();
    expect(s.durationMs).toBeNull();
    expect(s.prompt.inputTokens.dist).toBe('fixed');
    expect(s.prompt.outputTokens?.dist).toBe('fixed');
    expect(s.request.temperature).toBe(0);
    expect(profile.thresholds.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(profile.slo).length).toBeGreaterThan(0);
    expect(Object.keys(profile.compare.tolerances).length).toBeGreaterThan(0);
  });
});
