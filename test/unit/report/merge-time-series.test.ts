/**
 * The merged time series of shards: seconds moved onto the earliest start's clock, rows of one group and
 * second added, percentiles left empty (they cannot be merged from rows), the lowest rate-limit headroom.
 */
import { describe, expect, it } from 'vitest';
import type { TimeSeriesPoint } from '../../../src/metrics/run-summary.js';
import { mergeTimeSeries } from '../../../src/report/merge/merge-time-series.js';

const point = (second: number, completed: number, remaining: number | null = null): TimeSeriesPoint => ({
  group: 'steady/m/-',
  second,
  started: completed,
  completed,
  failed: 0,
  throttled: 0,
  output_tokens: completed * 10,
  in_flight: 2,
  ttft_p50_ms: 12,
  ttft_p99_ms: 30,
  e2e_p50_ms: 50,
  ratelimit_remaining_requests: remaining,
  ratelimit_remaining_tokens: null,
});

describe('mergeTimeSeries', () => {
  it('aligns shards on wall-clock seconds and adds rows of the same second', () => {
    const merged = mergeTimeSeries([
      { offsetMs: 0, points: [point(0, 1, 90), point(1, 2, 80), point(2, 3)] },
      { offsetMs: 1_400, points: [point(0, 5, 70), point(1, 7)] },
    ]);
    expect(merged.map((p) => [p.second, p.completed, p.in_flight, p.output_tokens])).toEqual([
      [0, 1, 2, 10],
      [1, 7, 4, 70],
      [2, 10, 4, 100],
    ]);
    expect(merged.every((p) => p.ttft_p50_ms === null && p.ttft_p99_ms === null && p.e2e_p50_ms === null)).toBe(true);
    expect(merged[1]?.ratelimit_remaining_requests).toBe(70);
    expect(merged[2]?.ratelimit_remaining_requests).toBeNull();
  });
});
