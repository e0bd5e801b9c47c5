/**
 * The text chart of a capacity search: each step's share over the binding objective's limit where its
 * load and share put it, the allowed line, and the capacity inside its interval on that line.
 */
import { describe, expect, it } from 'vitest';
import type { CapacityGroupSummary, CapacityStepSummary } from '../../../src/metrics/capacity-summary.js';
import { formatCapacityChart } from '../../../src/report/capacity/capacity-chart.js';

const KEY = 'ttft_ms.p95';

function step(n: number, load: number, outcome: CapacityStepSummary['outcome'], share: number): CapacityStepSummary {
  return {
    step: n,
    load,
    outcome,
    reason: '',
    duration_ms: 10_000,
    achieved_per_s: load,
    requests: 100,
    failed: 0,
    ttft_ms: null,
    itl_ms: null,
    e2e_ms: null,
    queue_time_ms_p50: null,
    exceedance: { [KEY]: { observed: share, fitted: share, low: share, high: share } },
    tests: [],
  };
}

const group: CapacityGroupSummary = {
  group: 'chat/m/-',
  mode: 'rate',
  unit: 'req/s',
  capacity: 25,
  interval: [20, 40],
  censored: false,
  binding: KEY,
  per_objective: { [KEY]: 25 },
  last_pass: 20,
  first_fail: 40,
  end_reason: 'resolved',
  goodput_per_s: null,
  below_min: false,
  calibration: null,
  search_ms: 1000,
  steps: [step(1, 10, 'pass', 0), step(2, 40, 'fail', 0.5), step(3, 20, 'pass', 0.02)],
};

describe('formatCapacityChart', () => {
  it('puts every step at its load and share, and the capacity inside its interval on the allowed line', () => {
    const chart = formatCapacityChart(group, [{ key: KEY, limit: 400, allowed: 0.05 }]);
    const lines = (chart as string).split('\n');
    expect(lines[0]).toContain("chat/m/-: share of requests over ttft_ms.p95's limit, by load (req/s)");
    const plot = lines.slice(1, 11).map((line) => line.slice(line.indexOf('|') + 1));
    // Loads 0..42 (5% over the highest) on 60 columns; shares 0..50% (the highest) on 10 rows.
    expect(lines[1]).toMatch(/^ *50% \|/);
    expect(plot[0]?.[56]).toBe('x');
    expect(lines[9]).toMatch(/^5% allowed \|/);
    expect(plot[8]?.slice(28, 57)).toBe('=======|=====================');
    expect(plot[9]?.[14]).toBe('o');
    expect(plot[9]?.[28]).toBe('o');
    expect(lines[10]).toMatch(/^ *0% \|/);
    expect(lines[12]?.trim()).toBe('10.0          20.0                        40.0');
  });

  it('is one line for a group its server objective binds: the bound, the bracket and the server at the knee', () => {
    const bound = { ...group, binding: 'kv_cache_usage.max', server_at_knee: 'KV cache 61% -> 99%' };
    const objectives = [
      { key: KEY, limit: 400, allowed: 0.05 },
      { key: 'kv_cache_usage.max', limit: 0.95, allowed: 0 },
    ];
    expect(formatCapacityChart(bound, objectives)).toBe(
      'chat/m/-: bound by the server, kv_cache_usage.max <= 95% over each step, broken between 20.0 and 40.0 req/s; the server: KV cache 61% -> 99% (no share of requests to draw)',
    );
  });

  it('is null for a group with no measured share of its objective', () => {
    const empty = { ...group, steps: group.steps.map((s) => ({ ...s, exceedance: {} })) };
    expect(formatCapacityChart(empty, [{ key: KEY, limit: 400, allowed: 0.05 }])).toBeNull();
  });
});
