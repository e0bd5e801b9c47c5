/**
 * Server objectives of a capacity SLO (server-objective.ts): `kv_cache_usage.max: 95%` read in the
 * concept's unit and refused where it cannot mean anything; a step whose tests passed FAILS when the
 * statistic of its server window is over the bound (and is not decided by a concept it lacks); the
 * server objective's crossing binds when it is the lowest, with the bracket as its interval; and
 * `--reevaluate` decides the stored steps by it as online.
 */
import { describe, expect, it } from 'vitest';
import type { CapacityEstimate } from '../../../../src/aggregate/capacity/capacity-fit.js';
import {
  type CapacityObjective,
  parseCapacitySlo,
  parseServerSlo,
} from '../../../../src/aggregate/capacity/capacity-slo.js';
import {
  parseServerObjective,
  serverChecks,
  serverCrossing,
  serverObjectiveLabel,
  withServerChecks,
  withServerObjectives,
} from '../../../../src/aggregate/capacity/server-objective.js';
import { InferbenchError } from '../../../../src/errors.js';
import type { CapacityStepsFile, StoredBlock } from '../../../../src/metrics/capacity-summary.js';
import type { ServerPhaseSummary } from '../../../../src/metrics/server-summary.js';
import { reevaluateCapacity } from '../../../../src/runner/capacity/reevaluate.js';

const at = { sources: ['vllm:kv_cache_usage_perc'], endpoint: 'http://127.0.0.1/metrics' };
function window(kvMax: number | null, waitingMean = 0): ServerPhaseSummary {
  return {
    from_s: 0,
    to_s: 5,
    scrapes: 5,
    failures: 0,
    output_tokens: 100,
    concepts: {
      kv_cache_usage: { kind: 'gauge', last: kvMax, min: 0, max: kvMax, mean: kvMax, ...at },
      waiting: { kind: 'gauge', last: waitingMean, min: 0, max: waitingMean, mean: waitingMean, ...at },
    },
    energy_per_output_token_j: null,
  };
}

describe('parsing', () => {
  it('reads each bound in its concept unit: a ratio from a percentage, ms from a duration, counts as numbers', () => {
    expect(parseServerObjective('kv_cache_usage.max', '95%')).toEqual({
      key: 'kv_cache_usage.max',
      concept: 'kv_cache_usage',
      stat: 'max',
      limit: 0.95,
    });
    expect(parseServerObjective('kv_cache_usage.max', 0.9)).toMatchObject({ limit: 0.9 });
    expect(parseServerObjective('server_queue_time.p99', '0.2s')).toMatchObject({ limit: 200 });
    expect(parseServerObjective('waiting.mean', 8)).toMatchObject({ concept: 'waiting', stat: 'mean', limit: 8 });
    expect(parseServerObjective('waiting.max', '0')).toMatchObject({ limit: 0 });
    expect(parseServerObjective('waiting.max', '5%')).toMatch(/waiting is in requests, not a ratio/);
    expect(parseServerObjective('kv_cache_usage.max', '5ms')).toMatch(/not a duration/);
    expect(parseServerObjective('kv_cache_usage.p42', 1)).toMatch(/bounds one of max, mean, last/);
    expect(serverObjectiveLabel({ key: 'kv_cache_usage.max', limit: 0.95 })).toBe('kv_cache_usage.max <= 95%');
    expect(serverObjectiveLabel({ key: 'server_ttft.p99', limit: 500 })).toBe('server_ttft.p99 <= 500 ms');
    expect(serverObjectiveLabel({ key: 'waiting.mean', limit: 8 })).toBe('waiting.mean <= 8');
    // A counter's rate is per second: joules a second, not joules.
    expect(serverObjectiveLabel({ key: 'energy_j.max_per_s', limit: 300 })).toBe('energy_j.max_per_s <= 300 J/s');
    expect(serverObjectiveLabel({ key: 'energy_j.delta', limit: 300 })).toBe('energy_j.delta <= 300 J');
    expect(serverObjectiveLabel({ key: 'preemptions.max_per_s', limit: 0 })).toBe('preemptions.max_per_s <= 0');
  });

  it("takes only the statistics the concept's kind has in its window (else it would never decide)", () => {
    // Gauges: max, mean, last and the p99 of their per-second values.
    expect(parseServerObjective('waiting.p99', 30)).toMatchObject({ concept: 'waiting', stat: 'p99', limit: 30 });
    // Counters: the increase, the average rate and the busiest second's, the p99 of the per-second rates.
    expect(parseServerObjective('preemptions.max_per_s', 0)).toMatchObject({ stat: 'max_per_s', limit: 0 });
    expect(parseServerObjective('generation_tokens_per_s.p99_per_s', 5000)).toMatchObject({ stat: 'p99_per_s' });
    expect(parseServerObjective('preemptions.delta', 0)).toMatchObject({ stat: 'delta' });
    // Histograms: quantiles and the mean, in ms.
    expect(parseServerObjective('server_ttft.mean', '300ms')).toMatchObject({ stat: 'mean', limit: 300 });
    // A statistic of another kind is refused, naming what the concept has.
    expect(parseServerObjective('waiting.per_s', 1)).toBe(
      'a server objective bounds one of max, mean, last, p99 of waiting (a gauge), not "per_s"',
    );
    expect(parseServerObjective('preemptions.max', 1)).toBe(
      'a server objective bounds one of delta, per_s, max_per_s, p99_per_s of preemptions (a counter), not "max"',
    );
    expect(parseServerObjective('server_ttft.last', 1)).toMatch(
      /one of p50, p90, p99, mean of server_ttft \(a histogram\)/,
    );
    expect(parseServerObjective('prefix_cache_hit_ratio.max', 1)).toMatch(
      /prefix_cache_hit_ratio is a ratio \(hits \/ queries\): no statistic of it is bounded from above/,
    );
  });

  it('parseCapacitySlo leaves server objectives to parseServerSlo, reports a bad one, and wants a request objective', () => {
    const slo = { 'ttft_ms.p99': 500, 'kv_cache_usage.max': '95%', error_rate: '1%' };
    expect(parseCapacitySlo(slo).map((o) => o.key)).toEqual(['ttft_ms.p99', 'error_rate']);
    expect(parseServerSlo(slo).map((o) => [o.key, o.limit])).toEqual([['kv_cache_usage.max', 0.95]]);
    const problem = (value: Record<string, number | string>): string => {
      try {
        parseCapacitySlo(value);
      } catch (error) {
        if (error instanceof InferbenchError) return error.message;
      }
      throw new Error('expected BAD_PROFILE');
    };
    expect(problem({ 'ttft_ms.p99': 500, 'waiting.max': '5%' })).toMatch(
      /slo\["waiting.max"\]: waiting is in requests/,
    );
    expect(problem({ 'kv_cache_usage.max': '95%' })).toMatch(/at least one SLO on the requests/);
  });
});

describe('a step held to its server objectives', () => {
  const [kv] = parseServerSlo({ 'kv_cache_usage.max': '95%' });
  const objectives = [kv!];

  it('a PASS over the bound FAILS naming it; under it, or without the concept, it stays', () => {
    const over = serverChecks(window(0.99), objectives);
    expect(over).toEqual([{ key: 'kv_cache_usage.max', value: 0.99, limit: 0.95, held: false }]);
    expect(withServerChecks({ outcome: 'pass', reason: 'ttft ok', spoiled: false }, over)).toEqual({
      outcome: 'fail',
      reason: 'server over its bound: kv_cache_usage.max 0.99 > 0.95; tests: ttft ok',
    });
    // Undecided at the cap but the server over: FAIL too; a spoiled step stays undecided.
    expect(withServerChecks({ outcome: 'inconclusive', reason: 'undecided', spoiled: false }, over).outcome).toBe(
      'fail',
    );
    expect(withServerChecks({ outcome: 'inconclusive', reason: 'interrupted', spoiled: true }, over).outcome).toBe(
      'inconclusive',
    );
    const under = serverChecks(window(0.95), objectives);
    expect(under[0]?.held).toBe(true);
    expect(withServerChecks({ outcome: 'pass', reason: 'ok', spoiled: false }, under).outcome).toBe('pass');
    const unknown = serverChecks(window(null), objectives);
    expect(unknown[0]).toEqual({ key: 'kv_cache_usage.max', value: null, limit: 0.95, held: null });
    expect(serverChecks(null, objectives)[0]?.held).toBeNull();
    expect(withServerChecks({ outcome: 'pass', reason: 'ok', spoiled: false }, unknown).outcome).toBe('pass');
  });

  it("waiting.p99 reads the gauge's p99 over the step's seconds, preemptions.max_per_s the busiest second", () => {
    const objectives = parseServerSlo({ 'waiting.p99': 10, 'preemptions.max_per_s': 0 });
    const step = (p99: number | undefined, maxPerS: number | null): ServerPhaseSummary => ({
      ...window(0.5, 4),
      concepts: {
        waiting: { kind: 'gauge', last: 2, min: 0, max: 30, mean: 4, ...(p99 === undefined ? {} : { p99 }), ...at },
        preemptions: { kind: 'counter', delta: 3, per_s: 0.1, max_per_s: maxPerS, p99_per_s: maxPerS, ...at },
      },
    });
    // A queue that touched 30 in one second of many: its p99 (8) holds where its max would not.
    expect(serverChecks(step(8, 0), objectives)).toEqual([
      { key: 'waiting.p99', value: 8, limit: 10, held: true },
      { key: 'preemptions.max_per_s', value: 0, limit: 0, held: true },
    ]);
    expect(serverChecks(step(12, 2), objectives).map((c) => c.held)).toEqual([false, false]);
    // A window stored before p99 was written has none: not decided by it.
    expect(serverChecks(step(undefined, null), objectives).map((c) => c.held)).toEqual([null, null]);
  });

  it('its crossing: the highest load that held below the lowest that broke it', () => {
    const steps = [
      { load: 10, checks: serverChecks(window(0.5), objectives) },
      { load: 40, checks: serverChecks(window(0.99), objectives) },
      { load: 20, checks: serverChecks(window(0.8), objectives) },
      { load: 30, checks: serverChecks(window(0.97), objectives) },
      // Held at 50 (a fluke) does not lift the capacity over the break at 30.
      { load: 50, checks: serverChecks(window(0.9), objectives) },
      { load: 25, checks: serverChecks(window(null), objectives) },
    ];
    expect(serverCrossing(steps, kv!.key)).toEqual({ capacity: 20, censored: false, over: 30 });
    expect(serverCrossing(steps.slice(0, 1), kv!.key)).toEqual({ capacity: 10, censored: true, over: null });
    expect(serverCrossing(steps.slice(1, 2), kv!.key)).toEqual({ capacity: null, censored: false, over: 40 });
    expect(serverCrossing(steps.slice(5), kv!.key)).toBeNull();
  });

  it('binds when its crossing is under the fit of the request objectives, its interval the bracket', () => {
    const fit: CapacityEstimate = {
      capacity: 27,
      censored: false,
      interval: [24, 31],
      intervalCensored: [false, false],
      binding: 'ttft_ms.p99',
      perObjective: { 'ttft_ms.p99': 27 },
      perObjectiveCensored: { 'ttft_ms.p99': false },
      fitted: {},
      resamples: 1000,
    };
    const steps = [
      { load: 10, checks: serverChecks(window(0.5), objectives) },
      { load: 20, checks: serverChecks(window(0.99), objectives) },
    ];
    const bound = withServerObjectives(fit, steps, objectives);
    expect(bound).toMatchObject({
      capacity: 10,
      binding: 'kv_cache_usage.max',
      interval: [10, 20],
      censored: false,
      perObjective: { 'ttft_ms.p99': 27, 'kv_cache_usage.max': 10 },
    });
    // Held everywhere up to 40: the fit's 27 stays and binds; the server objective's capacity is a bound.
    const held = withServerObjectives(fit, [{ load: 40, checks: serverChecks(window(0.5), objectives) }], objectives);
    expect(held).toMatchObject({ capacity: 27, binding: 'ttft_ms.p99', interval: [24, 31] });
    expect(held.perObjective['kv_cache_usage.max']).toBe(40);
    expect(held.perObjectiveCensored['kv_cache_usage.max']).toBe(true);
    // Broken at the lowest load with a value: no capacity, and it binds.
    const broke = withServerObjectives(fit, [{ load: 10, checks: serverChecks(window(0.99), objectives) }], objectives);
    expect(broke).toMatchObject({ capacity: null, binding: 'kv_cache_usage.max', interval: null });
  });
});

describe('--reevaluate with a server objective', () => {
  const ERRORS: CapacityObjective = { key: 'error_rate', metric: 'error_rate', allowed: 0.1, limit: 0.1 };
  const SPEC = { alpha: 0.05, beta: 0.05, indifference: 0.5, blockMs: 1000, seed: 1 };
  const clean: StoredBlock[] = Array.from({ length: 8 }, () => ({ ok: 20, failed: 0, histograms: {} }));
  const file: CapacityStepsFile = {
    schema_version: 1,
    run_id: 'test',
    objectives: [{ key: ERRORS.key, limit: ERRORS.limit, allowed: ERRORS.allowed }],
    settings: {} as CapacityStepsFile['settings'],
    groups: [
      {
        group: 'g',
        mode: 'rate',
        unit: 'req/s',
        steps: [10, 20, 30].map((load, i) => ({
          step: i + 1,
          load,
          outcome: 'pass' as const,
          reason: '',
          overload: null,
          blocks: clean,
          server: window([0.4, 0.9, 0.99][i] as number, [0, 2, 9][i] as number),
        })),
      },
    ],
  };

  it('decides a stored step by its server window: the bound that binds is named, the others pass', () => {
    const none = reevaluateCapacity(file, [ERRORS], SPEC)[0]!;
    expect(none.steps.map((s) => s.outcome)).toEqual(['pass', 'pass', 'pass']);
    expect(none.estimate).toMatchObject({ capacity: 30, censored: true, binding: 'error_rate' });

    const server = parseServerSlo({ 'kv_cache_usage.max': '95%', 'waiting.mean': 5 });
    const group = reevaluateCapacity(file, [ERRORS], SPEC, server)[0]!;
    expect(group.steps.map((s) => s.outcome)).toEqual(['pass', 'pass', 'fail']);
    expect(group.steps[2]?.reason).toMatch(
      /^server over its bound: kv_cache_usage.max 0.99 > 0.95, waiting.mean 9 > 5; tests: /,
    );
    expect(group.firstFail).toBe(30);
    expect(group.lastPass).toBe(20);
    // Both break at 30: the first in the SLO's order binds at 20, the bracket 20 - 30.
    expect(group.estimate).toMatchObject({ capacity: 20, binding: 'kv_cache_usage.max', interval: [20, 30] });
    expect(group.estimate.perObjective).toMatchObject({ error_rate: 30, 'kv_cache_usage.max': 20, 'waiting.mean': 20 });
  });
});
