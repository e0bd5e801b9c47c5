/**
 * Thresholds: every operator, a group-specific threshold, one result per group when no group is named,
 * and a value the run does not have failing with actual null.
 */
import { describe, expect, it } from 'vitest';
import { evaluateThresholds } from '../../../src/aggregate/thresholds.js';
import type { ThresholdSpec } from '../../../src/profile/resolved-profile.js';
import type { GroupSummary, MetricStats } from '../../../src/metrics/run-summary.js';

function stats(p99: number): MetricStats {
  return {
    count: 10,
    mean: p99 / 2,
    min: 1,
    max: p99 + 1,
    p50: p99 / 2,
    p90: p99 - 1,
    p95: p99 - 0.5,
    p99,
    p999: p99 + 0.5,
  };
}

function group(key: string, ttftP99: number, errorRate: number, rps: number): GroupSummary {
  const [scenario, model, tier] = key.split('/') as [string, string, string];
  return {
    scenario,
    model,
    tier: tier === '-' ? null : tier,
    key,
    requests: { ok: 90, failed: 10, dropped: 0, errors: {}, attempts: 100, retried: {}, error_samples: {} },
    error_rate: errorRate,
    throughput: {
      requests_per_s: rps,
      output_tokens_per_s: rps * 100,
      total_tokens_per_s: rps * 300,
      goodput_per_s: rps / 2,
    },
    duration_ms: 1000,
    metrics: { ttft_ms: stats(ttftP99) },
    histograms: {},
    tokens: { estimated_requests: 0, mismatched_requests: 0, max_mismatch: 0 },
    tiers_used: {},
  };
}

function spec(
  expression: string,
  metric: string,
  stat: string | null,
  op: ThresholdSpec['op'],
  value: number,
  g: string | null = null,
): ThresholdSpec {
  return { expression, group: g, metric, stat, op, value };
}

const GROUPS = [group('s/a/-', 500, 0.01, 20), group('s/b/flex', 900, 0.0, 10)];

describe('evaluateThresholds', () => {
  it('applies each operator', () => {
    const only = [GROUPS[0]!];
    const results = evaluateThresholds(
      [
        spec('ttft_ms.p99 < 500', 'ttft_ms', 'p99', '<', 500),
        spec('ttft_ms.p99 <= 500', 'ttft_ms', 'p99', '<=', 500),
        spec('ttft_ms.p99 > 500', 'ttft_ms', 'p99', '>', 500),
        spec('ttft_ms.p99 >= 500', 'ttft_ms', 'p99', '>=', 500),
        spec('error_rate < 0.02', 'error_rate', null, '<', 0.02),
        spec('requests_per_s >= 20', 'requests_per_s', null, '>=', 20),
        spec('goodput_per_s > 10', 'goodput_per_s', null, '>', 10),
        spec('output_tokens_per_s >= 2000', 'output_tokens_per_s', null, '>=', 2000),
      ],
      only,
    );
    expect(results.map((r) => [r.passed, r.actual])).toEqual([
      [false, 500],
      [true, 500],
      [false, 500],
      [true, 500],
      [true, 0.01],
      [true, 20],
      [false, 10],
      [true, 2000],
    ]);
  });

  it('no group named: one result per group, each must pass', () => {
    const results = evaluateThresholds([spec('ttft_ms.p99 < 800', 'ttft_ms', 'p99', '<', 800)], GROUPS);
    expect(results).toEqual([
      { expression: 'ttft_ms.p99 < 800', group: 's/a/-', actual: 500, passed: true },
      { expression: 'ttft_ms.p99 < 800', group: 's/b/flex', actual: 900, passed: false },
    ]);
  });

  it('a named group is the only one checked', () => {
    const results = evaluateThresholds([spec('s/b/flex: e2e', 'ttft_ms', 'p90', '<', 900, 's/b/flex')], GROUPS);
    expect(results).toEqual([{ expression: 's/b/flex: e2e', group: 's/b/flex', actual: 899, passed: true }]);
  });

  it('a missing metric, stat or group fails with actual null', () => {
    const results = evaluateThresholds(
      [
        spec('tpot_ms.p99 < 50', 'tpot_ms', 'p99', '<', 50),
        spec('ttft_ms.p42 < 1', 'ttft_ms', 'p42', '<', 1),
        spec('nonsense < 1', 'nonsense', null, '<', 1),
        spec('x/y/z: ttft_ms.p99 < 1', 'ttft_ms', 'p99', '<', 1, 'x/y/z'),
      ],
      [GROUPS[0]!],
    );
    expect(results.map((r) => [r.group, r.actual, r.passed])).toEqual([
      ['s/a/-', null, false],
      ['s/a/-', null, false],
      ['s/a/-', null, false],
      ['x/y/z', null, false],
    ]);
  });
});
