/**
 * `capacity.step_warmup`: the untested start of every capacity step. Its default (the scenario's warmup,
 * else 5 s, either at most a quarter of the step) and the rule that it leaves a tested block of the step.
 */
import { describe, expect, it } from 'vitest';
import { formatProfilePlan } from '../../../src/profile/format-plan.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { stepRampBlocks, stepWarmupMs } from '../../../src/profile/sections/capacity.js';
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

  it("caps a scenario's warmup at a quarter of the step, so a run's long warmup leaves steps tested", () => {
    // A run warmup of a minute with 20 s steps would otherwise leave every step untested (INCONCLUSIVE).
    expect(warmupOf(`${scenario('    warmup: 60s\n')}capacity: { step_duration: 20s }\n`)).toBe(5000);
    expect(warmupOf(`${scenario('    warmup: 20s\n')}`)).toBe(15_000);
    // Set explicitly it is taken as it is (the profile check keeps a block tested).
    expect(warmupOf(`${scenario('    warmup: 60s\n')}capacity: { step_duration: 20s, step_warmup: 12s }\n`)).toBe(
      12_000,
    );
  });

  it('becomes ramp blocks: the first block plus the warmup in blocks', () => {
    expect(stepRampBlocks(5000, 1000)).toBe(6);
    expect(stepRampBlocks(0, 1000)).toBe(1);
    expect(stepRampBlocks(1200, 250)).toBe(6);
  });

  it('must leave a block of the step tested (the last block is read by no test either), and be a duration', () => {
    expect(profileProblems(`${scenario()}capacity:\n  step_duration: 10s\n  step_warmup: 10s\n`)).toEqual([
      expect.stringMatching(
        /p\.yaml:7:\d+: capacity\.step_warmup: a step's untested start \(step_warmup 10 s and the first block: 11 blocks of 1 s\) and its last block leave no block of the step \(step_duration 10 s\) for the tests: make step_duration at least 13 s/,
      ),
    ]);
    // 9 s of warmup plus the first block is the whole 10 s step: nothing would be tested.
    expect(profileProblems(`${scenario()}capacity:\n  step_duration: 10s\n  step_warmup: 9s\n`)).toEqual([
      expect.stringContaining('10 blocks of 1 s'),
    ]);
    expect(profileProblems(`${scenario()}capacity:\n  step_duration: 10s\n  step_warmup: 7s\n  block: 2s\n`)).toEqual([
      expect.stringContaining('5 blocks of 2 s'),
    ]);
    // 8 s of warmup, the first block and the last one: the whole 10 s step (the runner counts the same).
    expect(profileProblems(`${scenario()}capacity:\n  step_duration: 10s\n  step_warmup: 8s\n`)).toEqual([
      expect.stringContaining('9 blocks of 1 s'),
    ]);
    expect(() =>
      resolveProfileText(`${scenario()}capacity:\n  step_duration: 10s\n  step_warmup: 7s\n`, 'p.yaml'),
    ).not.toThrow();
    // The issue's 2 s step with no warmup: the first block and the last are the step.
    expect(profileProblems(`${scenario()}capacity: { max_step_duration: 2s, step_warmup: 0s }\n`)).toEqual([
      expect.stringContaining('make max_step_duration at least 3 s'),
    ]);
    expect(profileProblems(`${scenario()}capacity: { step_warmup: 90s }\n`)).toEqual([
      expect.stringContaining('step_duration 60 s'),
    ]);
    expect(profileProblems(`${scenario()}capacity: { step_warmup: soon }\n`)).toEqual([
      expect.stringContaining('capacity.step_warmup: expected a duration like "5s" or "0s"'),
    ]);
  });

  it('is shown by validate as each scenario gets it', () => {
    const plan = (text: string): string =>
      formatProfilePlan(resolveProfileText(text, 'p.yaml'))
        .split('\n')
        .find((line) => line.startsWith('capacity (inferbench capacity):')) ?? '';
    expect(plan(`${scenario()}capacity: { slo: { ttft_ms.p90: 75ms }, step_duration: 12s }\n`)).toBe(
      'capacity (inferbench capacity): slo ttft_ms.p90 < 75ms; steps of at most 12.0s, each starting with 3.0s (default) untested; blocks of 1.0s; resolution 10%; at most 12 steps',
    );
    expect(plan(`${scenario('    warmup: 60s\n')}capacity: { step_duration: 20s }\n`)).toContain(
      "each starting with 5.0s (the scenario's warmup, capped at a quarter of the step) untested",
    );
    expect(plan(`${scenario('    warmup: 60s\n')}capacity: { step_warmup: 0s }\n`)).toContain(
      'each starting with 0ms (step_warmup) untested',
    );
    const two = `${scenario('    warmup: 8s\n')}  - name: t\n    load: { mode: rate, rate: 5 }\n    duration: 5s\n`;
    expect(plan(two)).toContain("each starting with s 8.0s (the scenario's warmup), t 5.0s (default) untested");
  });
});

describe('capacity.max_step_duration', () => {
  it('is the cap of a step (step_duration its older name, not both); unset, the search computes it', () => {
    const capOf = (text: string) => resolveProfileText(`${scenario()}${text}`, 'p.yaml').capacity;
    expect(capOf('capacity: { max_step_duration: 3m }\n')).toMatchObject({
      maxStepDurationMs: 180_000,
      stepDurationMs: 180_000,
    });
    expect(capOf('capacity: { step_duration: 20s }\n')).toMatchObject({
      maxStepDurationMs: 20_000,
      stepDurationMs: 20_000,
    });
    expect(capOf('capacity: {}\n')).toMatchObject({ maxStepDurationMs: null, stepDurationMs: 60_000 });
    expect(profileProblems(`${scenario()}capacity: { max_step_duration: 2m, step_duration: 1m }\n`)).toEqual([
      expect.stringContaining(
        'capacity.step_duration: step_duration is the older name of max_step_duration: set one of them',
      ),
    ]);
    expect(profileProblems(`${scenario()}capacity: { max_step_duration: 10s, step_warmup: 10s }\n`)).toEqual([
      expect.stringContaining('leave no block of the step (max_step_duration 10 s)'),
    ]);
    const plan = formatProfilePlan(
      resolveProfileText(`${scenario()}capacity: { slo: { ttft_ms.p99: 250ms } }\n`, 'p.yaml'),
    );
    expect(plan).toContain(
      'steps of at most 1m00s (longer when a p99 needs it at half the start load: max_step_duration not set)',
    );
  });
});
