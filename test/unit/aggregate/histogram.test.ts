/**
 * Histogram encoding: encode -> decode keeps exact counts and percentiles (within HDR precision, 3
 * significant digits); stats come out in the metric's unit.
 */
import { describe, expect, it } from 'vitest';
import {
  createHistogram,
  decodeHistogram,
  encodeHistogram,
  metricScale,
  metricStatsFromHistogram,
} from '../../../src/aggregate/histogram.js';

describe('histograms', () => {
  it('round-trips through compressed base64 with exact counts and the same percentiles', () => {
    const h = createHistogram();
    // 1..10000 ms in µs, one each, plus 500 zeros (e.g. schedule lag of 0).
    for (let ms = 1; ms <= 10_000; ms++) h.recordValue(ms * 1000);
    h.recordValueWithCount(0, 500);
    const encoded = encodeHistogram(h);
    expect(encoded.startsWith('HISTFAAA')).toBe(true);
    const decoded = decodeHistogram(encoded);
    expect(decoded.totalCount).toBe(10_500);
    for (const p of [0, 1, 10, 50, 90, 99, 99.9, 100])
      expect(decoded.getValueAtPercentile(p)).toBe(h.getValueAtPercentile(p));
    expect(decoded.mean).toBeCloseTo(h.mean, 6);
    // Stats are the same whether computed live or from the decoded histogram (merge and report rely on it).
    expect(metricStatsFromHistogram(decoded, 1000)).toEqual(metricStatsFromHistogram(h, 1000));
  });

  it('stats in ms from µs, within HDR precision', () => {
    const h = createHistogram();
    for (let ms = 1; ms <= 1000; ms++) h.recordValue(ms * 1000);
    const stats = metricStatsFromHistogram(h, metricScale('ttft_ms'));
    expect(stats.count).toBe(1000);
    const within = (actual: number, expected: number): void => {
      expect(Math.abs(actual - expected)).toBeLessThanOrEqual(expected * 0.001 + 0.001);
    };
    within(stats.p50, 500);
    within(stats.p90, 900);
    within(stats.p95, 950);
    within(stats.p99, 990);
    within(stats.p999, 999);
    within(stats.min, 1);
    within(stats.max, 1000);
    within(stats.mean, 500.5);
    // Token counts are raw integers, exact below 2048.
    const tokens = createHistogram();
    for (const v of [3, 5, 5, 8]) tokens.recordValue(v);
    expect(metricStatsFromHistogram(tokens, metricScale('output_tokens'))).toMatchObject({
      count: 4,
      min: 3,
      max: 8,
      p50: 5,
      mean: 5.25,
    });
    expect(metricScale('decode_tps')).toBe(1000);
  });

  it('empty histogram -> zero count', () => {
    expect(metricStatsFromHistogram(createHistogram(), 1000).count).toBe(0);
  });
});
