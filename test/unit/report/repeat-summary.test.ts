/** The --repeat aggregate: mean, sample stddev and Student-t 95% CI, group by group. */
import { describe, expect, it } from 'vitest';
import { aggregateRepeats, repeatStat, tCritical95 } from '../../../src/report/repeat-summary.js';
import type { RunSummary } from '../../../src/metrics/run-summary.js';

function run(ttftP50: number, tokensPerS: number): { dir: string; summary: RunSummary } {
  const stats = {
    count: 10,
    mean: ttftP50,
    min: 1,
    max: 99,
    p50: ttftP50,
    p90: ttftP50,
    p95: ttftP50,
    p99: ttftP50 * 2,
    p999: ttftP50 * 2,
  };
  return {
    dir: `/runs/${ttftP50}`,
    summary: {
      run_id: `r-${ttftP50}`,
      profile: { name: 'p', source: null, resolved: {} },
      workload_hash: 'h',
      complete: true,
      groups: [
        {
          key: 's/m/-',
          error_rate: 0,
          throughput: { requests_per_s: 5, output_tokens_per_s: tokensPerS, total_tokens_per_s: 0, goodput_per_s: 0 },
          metrics: { ttft_ms: stats },
        },
      ],
    } as unknown as RunSummary,
  };
}

describe('repeat aggregate', () => {
  it('computes mean, sample stddev and the t interval', () => {
    const s = repeatStat([10, 12, 14]);
    expect(s.mean).toBe(12);
    expect(s.stddev).toBeCloseTo(2, 10);
    // t(2) = 4.303: half-width 4.303 * 2 / sqrt(3) = 4.969
    expect(s.ci95![0]).toBeCloseTo(12 - 4.969, 3);
    expect(s.ci95![1]).toBeCloseTo(12 + 4.969, 3);
    expect(s.cv).toBeCloseTo(2 / 12, 10);
    expect(repeatStat([7]).ci95).toBeNull();
    expect(tCritical95(9)).toBe(2.262);
  });

  it('aggregates each group metric over the runs', () => {
    const agg = aggregateRepeats([run(10, 100), run(12, 110), run(14, 120)]);
    expect(agg.runs.map((r) => r.run_id)).toEqual(['r-10', 'r-12', 'r-14']);
    const g = agg.groups[0]!;
    expect(g.key).toBe('s/m/-');
    expect(g.metrics['ttft_ms.p50']!.values).toEqual([10, 12, 14]);
    expect(g.metrics['ttft_ms.p99']!.mean).toBe(24);
    expect(g.metrics['output_tokens_per_s']!.mean).toBe(110);
    expect(g.metrics['itl_ms.p50']).toBeUndefined();
  });
});
