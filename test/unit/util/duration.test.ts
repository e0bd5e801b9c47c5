import { describe, expect, it } from 'vitest';
import { formatDurationMs, parseDurationMs } from '../../../src/util/duration.js';

describe('durations', () => {
  it.each([
    ['250ms', 250],
    ['30s', 30_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    ['500us', 0.5],
    ['12', 12_000],
    [' 5s ', 5000],
  ])('parses %s', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it('takes numbers as seconds', () => {
    expect(parseDurationMs(3)).toBe(3000);
    expect(parseDurationMs(-1)).toBeUndefined();
  });

  it.each(['', 'abc', '5 s', '5x', 's', '1m 30s', '-5s', '5s5'])('rejects %j', (text) => {
    expect(parseDurationMs(text)).toBeUndefined();
  });

  it('formats for humans', () => {
    expect(formatDurationMs(850)).toBe('850ms');
    expect(formatDurationMs(12_340)).toBe('12.3s');
    expect(formatDurationMs(65_000)).toBe('1m05s');
    expect(formatDurationMs(Number.NaN)).toBe('-');
  });
});
