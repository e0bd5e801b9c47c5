/**
 * The profile keys that stop a run early: thresholds in their object form (`{ threshold, abort_on_fail,
 * delay_abort_eval }`, k6's abortOnFail and delayAbortEval) beside plain strings, and a scenario's
 * `max_error_rate` in its short and long forms; bad values are profile errors naming line and field.
 */
import { describe, expect, it } from 'vitest';
import { profileProblems } from '../../helpers/profile-problems.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { formatProfilePlan } from '../../../src/profile/format-plan.js';

const MINIMAL = 'scenarios:\n  - name: s\n    duration: 5s\n';

const problems = (text: string): string[] => profileProblems(text, '.');

describe('thresholds: the object form', () => {
  it('resolves objects beside strings; abort_on_fail carries its grace period in ms', () => {
    const profile = resolveProfileText(
      `${MINIMAL}thresholds:\n  - "error_rate < 0.01"\n  - { threshold: "ttft_ms.p99 < 500", abort_on_fail: true, delay_abort_eval: 10s }\n  - { threshold: "e2e_ms.p50 < 900" }\n  - { threshold: "itl_ms.p99 < 50", abort_on_fail: false }\n`,
      'p.yaml',
    );
    expect(profile.thresholds).toEqual([
      { expression: 'error_rate < 0.01', group: null, metric: 'error_rate', stat: null, op: '<', value: 0.01 },
      {
        expression: 'ttft_ms.p99 < 500',
        group: null,
        metric: 'ttft_ms',
        stat: 'p99',
        op: '<',
        value: 500,
        abortOnFail: { delayMs: 10_000 },
      },
      { expression: 'e2e_ms.p50 < 900', group: null, metric: 'e2e_ms', stat: 'p50', op: '<', value: 900 },
      { expression: 'itl_ms.p99 < 50', group: null, metric: 'itl_ms', stat: 'p99', op: '<', value: 50 },
    ]);
    expect(profile.thresholds[2]).not.toHaveProperty('abortOnFail');
    expect(formatProfilePlan(profile)).toContain(
      'ttft_ms.p99 < 500 (every group), stops the run when it fails (after 10.0s)',
    );
  });

  it('abort_on_fail without a delay is checked from the start of the measured part', () => {
    const profile = resolveProfileText(
      `${MINIMAL}thresholds: [{ threshold: "error_rate < 0.5", abort_on_fail: true }]\n`,
      'p.yaml',
    );
    expect(profile.thresholds[0]!.abortOnFail).toEqual({ delayMs: 0 });
  });

  it('names the line and field of a bad threshold object', () => {
    const at = (extra: string): string => problems(`${MINIMAL}${extra}`).join('\n');
    expect(at('thresholds:\n  - { threshold: "ttft_ms.p42 < 1", abort_on_fail: true }\n')).toMatch(
      /^p\.yaml:5:18: thresholds\[0\]\.threshold: "ttft_ms\.p42 < 1": unknown stat "p42"/,
    );
    expect(
      at('thresholds:\n  - { threshold: "ttft_ms.p99 < 1", abort_on_fail: true, delay_abort_eval: soon }\n'),
    ).toMatch(/^p\.yaml:5:76: thresholds\[0\]\.delay_abort_eval: expected a duration/);
    expect(at('thresholds:\n  - { threshold: "ttft_ms.p99 < 1", abort_on_fail: "yes" }\n')).toMatch(
      /^p\.yaml:5:52: thresholds\[0\]\.abort_on_fail: expected boolean/,
    );
    expect(at('thresholds:\n  - { threshold: "ttft_ms.p99 < 1", abort_on_fial: true }\n')).toMatch(
      /thresholds\[0\]\.abort_on_fial: unknown key \(did you mean "abort_on_fail"\?\)/,
    );
    expect(at('thresholds:\n  - { abort_on_fail: true }\n')).toMatch(/thresholds\[0\]\.threshold: required \(string\)/);
    expect(at('thresholds:\n  - { threshold: "ttft_ms.p99 < 1", delay_abort_eval: 5s }\n')).toMatch(
      /thresholds\[0\]\.delay_abort_eval: applies only with abort_on_fail: true/,
    );
    expect(at('thresholds: [42]\n')).toMatch(/thresholds\[0\]: expected "metric\.stat op number" or \{ threshold/);
  });
});

describe('max_error_rate', () => {
  it('takes a percentage, a fraction or { rate, min_requests, delay_abort_eval }, in defaults too', () => {
    const scenarios = (extra: string) =>
      resolveProfileText(`${MINIMAL}${extra}`, 'p.yaml').scenarios.map((s) => s.maxErrorRate);
    expect(scenarios('    max_error_rate: 50%\n')).toEqual([{ rate: 0.5, minRequests: 20, delayMs: 0 }]);
    expect(scenarios('    max_error_rate: 0.25\n')).toEqual([{ rate: 0.25, minRequests: 20, delayMs: 0 }]);
    expect(scenarios('    max_error_rate: { rate: 12.5%, min_requests: 50, delay_abort_eval: 3s }\n')).toEqual([
      { rate: 0.125, minRequests: 50, delayMs: 3000 },
    ]);
    expect(scenarios('defaults: { max_error_rate: 90% }\n')).toEqual([{ rate: 0.9, minRequests: 20, delayMs: 0 }]);
    const profile = resolveProfileText(`${MINIMAL}    max_error_rate: 50%\n`, 'p.yaml');
    expect(formatProfilePlan(profile)).toContain(
      "stop early when a group's error rate exceeds 50% (after 20 requests)",
    );
  });

  it('is absent from scenarios that do not set it', () => {
    expect(resolveProfileText(MINIMAL, 'p.yaml').scenarios[0]).not.toHaveProperty('maxErrorRate');
  });

  it('names the line and field of a bad value', () => {
    const at = (extra: string): string => problems(`${MINIMAL}${extra}`).join('\n');
    expect(at('    max_error_rate: 150%\n')).toMatch(
      /^p\.yaml:4:21: scenarios\[0\]\.max_error_rate: expected a fraction/,
    );
    expect(at('    max_error_rate: 2\n')).toMatch(/scenarios\[0\]\.max_error_rate: Too big/);
    expect(at('    max_error_rate: { rate: lots }\n')).toMatch(
      /scenarios\[0\]\.max_error_rate\.rate: expected a fraction/,
    );
    expect(at('    max_error_rate: { rate: 50%, min_requests: 0 }\n')).toMatch(
      /scenarios\[0\]\.max_error_rate\.min_requests: Too small/,
    );
    expect(at('    max_error_rate: { rate: 50%, grace: 5s }\n')).toMatch(
      /scenarios\[0\]\.max_error_rate\.grace: unknown key/,
    );
  });
});
