/**
 * The `deadlines:` block (profile/sections/deadlines.ts) and the SLOs and thresholds on fluidity_index it
 * enables: resolved to milliseconds, units required, and fluidity_index refused without deadlines.
 */
import { describe, expect, it } from 'vitest';
import { profileProblems } from '../../helpers/profile-problems.js';
import { parseCapacitySlo } from '../../../src/aggregate/capacity/capacity-slo.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';

const SCENARIOS = 'scenarios:\n  - name: s\n    duration: 5s\n';

const problems = (text: string): string[] => profileProblems(text, '/tmp');

describe('deadlines', () => {
  it('resolves to milliseconds; absent is null', () => {
    expect(resolveProfileText(SCENARIOS, 'p.yaml', [], '/tmp').deadlines).toBeNull();
    const profile = resolveProfileText(`${SCENARIOS}deadlines: { ttft: 0.5s, tbt: 50ms }\n`, 'p.yaml', [], '/tmp');
    expect(profile.deadlines).toEqual({ ttftMs: 500, tbtMs: 50 });
  });

  it('needs both, each a positive duration with its unit, and no other key', () => {
    const lines = problems(`${SCENARIOS}deadlines: { ttft: 500, tbt: 0ms, tpot: 5ms }\n`);
    expect(lines.join('\n')).toMatch(/deadlines\.ttft: expected a positive duration with its unit/);
    expect(lines.join('\n')).toMatch(/deadlines\.tbt: expected a positive duration with its unit/);
    expect(lines.join('\n')).toMatch(/tpot/);
    expect(problems(`${SCENARIOS}deadlines: { ttft: 500ms }\n`).join('\n')).toMatch(/deadlines\.tbt/);
  });

  it('makes fluidity_index usable in slo, capacity.slo and thresholds', () => {
    const profile = resolveProfileText(
      `${SCENARIOS}deadlines: { ttft: 500ms, tbt: 50ms }
slo: { fluidity_index.p1: 0.9 }
capacity: { slo: { fluidity_index.p1: 0.9, ttft_ms.p99: 2s } }
thresholds: ["fluidity_index.p1 >= 0.9", "fluidity_index.mean > 0.95"]
`,
      'p.yaml',
      [],
      '/tmp',
    );
    expect(profile.slo).toEqual({ 'fluidity_index.p1': 0.9 });
    expect(profile.thresholds.map((t) => [t.metric, t.stat, t.op, t.value])).toEqual([
      ['fluidity_index', 'p1', '>=', 0.9],
      ['fluidity_index', 'mean', '>', 0.95],
    ]);
    expect(parseCapacitySlo(profile.capacity.slo)[0]).toEqual({
      key: 'fluidity_index.p1',
      metric: 'fluidity_index',
      allowed: 0.01,
      limit: 0.9,
    });
  });

  it('refuses fluidity_index anywhere without deadlines (it would judge nothing)', () => {
    const lines = problems(`${SCENARIOS}slo: { fluidity_index.p1: 0.9 }
capacity: { slo: { fluidity_index.p1: 0.9 } }
thresholds: ["fluidity_index.p1 >= 0.9"]
`);
    expect(lines.filter((line) => line.includes('fluidity_index needs deadlines'))).toHaveLength(3);
  });
});
