/**
 * The load plan (runner/load-plan.ts) on real resolved profiles: a trace replay plans its own span and
 * record count (cut by duration and requests), sessions and tool loops plan no request count (a session's
 * turns are not known in advance), a mix's classes share one schedule and so one request count per model
 * x tier x effort, and the warmup and connection-pool arithmetic of staged loads.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoadSpec } from '../../../src/profile/resolved-profile.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { maxConcurrency, plannedDurationMs, plannedRequestCount, warmupLoad } from '../../../src/runner/load-plan.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-load-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// 5 records at 0, 1, 2, 4 and 8 s (inferbench JSONL, ms).
writeFileSync(
  join(dir, 'trace.jsonl'),
  [0, 1000, 2000, 4000, 8000]
    .map((t) => JSON.stringify({ timestamp: t, input_tokens: 4, output_tokens: 2 }))
    .join('\n'),
);

const resolve = (scenarios: string) => resolveProfileText(`name: p\nscenarios:\n${scenarios}`, 'p.yaml', [], dir);

describe('a trace replay', () => {
  it('plans its span (time_scale applied) and its records, cut by duration and requests', () => {
    const whole = resolve('  - { name: t, load: { mode: trace, path: trace.jsonl, time_scale: 2 } }\n');
    expect(plannedDurationMs(whole.scenarios)).toBe(4000);
    expect(plannedRequestCount(whole)).toBe(5);
    const cut = resolve('  - { name: t, duration: 1500ms, load: { mode: trace, path: trace.jsonl, time_scale: 2 } }\n');
    // Records at 0, 500 and 1000 ms come before the 1.5 s duration.
    expect(plannedDurationMs(cut.scenarios)).toBe(1000);
    expect(plannedRequestCount(cut)).toBe(3);
    const counted = resolve('  - { name: t, requests: 2, load: { mode: trace, path: trace.jsonl } }\n');
    expect(plannedDurationMs(counted.scenarios)).toBe(1000);
    expect(plannedRequestCount(counted)).toBe(2);
  });
});

describe('sessions and tool loops', () => {
  it('plan no request count: requests counts sessions, whose turns are not known in advance', () => {
    const sessions = resolve(
      '  - { name: s, models: [m], requests: 4, load: { mode: concurrency, concurrency: 2 }, session: { turns: 3 } }\n',
    );
    expect(plannedRequestCount(sessions)).toBeNull();
    const tools = resolve(`  - name: a
    models: [m]
    requests: 4
    request: { tools: [{ type: function, function: { name: f, parameters: { type: object } } }] }
    tool_loop: { max_rounds: 2 }
`);
    expect(plannedRequestCount(tools)).toBeNull();
  });
});

describe('a mix', () => {
  it('counts its requests once per model x tier (its classes share one schedule), not per class', () => {
    const mixed = resolve(`  - name: x
    models: [m1, m2]
    requests: 10
    duration: 3s
    mix: [{ name: a, weight: 1 }, { name: b, weight: 2 }, { name: c, weight: 1 }]
  - { name: y, models: [m1], requests: 5, duration: 2s, warmup: 1s }
`);
    expect(mixed.groups.filter((group) => group.scenario === 'x')).toHaveLength(6);
    expect(plannedRequestCount(mixed)).toBe(10 * 2 + 5);
    expect(plannedDurationMs(mixed.scenarios)).toBe(3000 + 2000 + 1000);
  });
});

describe('staged loads', () => {
  const stages = [
    { durationMs: 1000, target: 0, ramp: 'linear' as const },
    { durationMs: 1000, target: 6.4, ramp: 'linear' as const },
    { durationMs: 1000, target: 3, ramp: 'step' as const },
  ];
  it('warm up at the first non-zero stage target, without stages', () => {
    expect(warmupLoad({ mode: 'concurrency', concurrency: 1, stages })).toEqual({
      mode: 'concurrency',
      concurrency: 6,
      stages: null,
    });
    const rate: LoadSpec = { mode: 'rate', rate: 1, arrival: 'poisson', burstiness: 1, maxConcurrency: 9, stages };
    expect(warmupLoad(rate)).toEqual({ ...rate, rate: 6.4, stages: null });
  });
  it('plan the end of their stages when it comes before the duration', () => {
    const staged = resolve(`  - name: s
    duration: 20s
    load: { mode: concurrency, stages: [{ duration: 1s, concurrency: 2 }, { duration: 2s, concurrency: 4 }] }
  - { name: t, load: { mode: rate, stages: [{ duration: 2s, rate: 5 }] } }
`);
    expect(plannedDurationMs(staged.scenarios)).toBe(3000 + 2000);
  });
  it('size the pool for the highest stage, or max_concurrency in open loop', () => {
    expect(maxConcurrency({ mode: 'concurrency', concurrency: 2, stages })).toBe(7);
    expect(
      maxConcurrency({ mode: 'rate', rate: 1, arrival: 'poisson', burstiness: 1, maxConcurrency: 9, stages }),
    ).toBe(9);
  });
});
