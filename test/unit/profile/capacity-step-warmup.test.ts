/**
 * `capacity.step_warmup`: the untested start of every capacity step. Its default (the scenario's warmup,
 * else 5 s, at most a quarter of the step) and the rule that it leaves a tested part of the step.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { stepWarmupMs } from '../../../src/profile/resolve-capacity.js';
import { stepRampBlocks } from '../../../src/runner/capacity/run-step.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const scenario = (extra = ''): string =>
  `scenarios:\n  - name: s\n    load: { mode: rate, rate: 5 }\n    duration: 5s\n${extra}`;

function warmupOf(text: string): number {
  const profile = resolveProfileText(text, 'p.yaml');
  return stepWarmupMs(profile.capacity, profile.scenarios[0]?.warmupMs ?? 0);
}

describe('capacity.step_warmup', () => {
  it('defaults to 5 s, at most a quarter of step_duration', () => {
    expect(warmupOf(scenario())).toBe(5000);
    expect(warmupOf(`${scenario()}capacity: { step_duration: 12s }\n`)).toBe(3000);
  });

  it("takes the scenario's warmup when it sets one, and step_warmup over both", () => {
    expect(warmupOf(scenario('    warmup: 8s\n'))).toBe(8000);
    expect(warmupOf(`${scenario('    warmup: 8s\n')}capacity: { step_warmup: 2500ms }\n`)).toBe(2500);
    expect(warmupOf(`${scenario()}capacity: { step_warmup: 0s }\n`)).toBe(0);
    expect(warmupOf(`${scenario()}capacity: { step_warmup: 0 }\n`)).toBe(0);
  });

  it('becomes ramp blocks: the first block plus the warmup in blocks', () => {
    expect(stepRampBlocks(5000, 1000)).toBe(6);
    expect(stepRampBlocks(0, 1000)).toBe(1);
    expect(stepRampBlocks(1200, 250)).toBe(6);
  });

  it('must leave part of the step tested, and be a duration', () => {
    expect(profileProblems(`${scenario()}capacity:\n  step_duration: 10s\n  step_warmup: 10s\n`)).toEqual([
      expect.stringMatching(
        /p\.yaml:7:\d+: capacity\.step_warmup: a step's untested start \(10 s\) must be shorter than the step \(step_duration 10 s\)/,
      ),
    ]);
    expect(profileProblems(`${scenario()}capacity: { step_warmup: 90s }\n`)).toEqual([
      expect.stringContaining('step_duration 60 s'),
    ]);
    expect(profileProblems(`${scenario()}capacity: { step_warmup: soon }\n`)).toEqual([
      expect.stringContaining('capacity.step_warmup: expected a duration like "5s" or "0s"'),
    ]);
  });
});
