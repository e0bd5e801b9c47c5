import { describe, expect, it } from 'vitest';
import { parseThreshold } from '../../../src/profile/parse-threshold.js';

describe('parseThreshold', () => {
  it('parses every operator, stats, group-level values and group keys', () => {
    expect(parseThreshold('ttft_ms.p99 < 800')).toEqual({
      ok: true,
      spec: { expression: 'ttft_ms.p99 < 800', group: null, metric: 'ttft_ms', stat: 'p99', op: '<', value: 800 },
    });
    expect(parseThreshold('  itl_ms.p999<=12.5 ')).toMatchObject({
      ok: true,
      spec: { expression: 'itl_ms.p999<=12.5', metric: 'itl_ms', stat: 'p999', op: '<=', value: 12.5 },
    });
    expect(parseThreshold('decode_tps.min > 20')).toMatchObject({
      ok: true,
      spec: { metric: 'decode_tps', stat: 'min', op: '>', value: 20 },
    });
    expect(parseThreshold('output_tokens_per_s >= 1e3')).toMatchObject({
      ok: true,
      spec: { metric: 'output_tokens_per_s', stat: null, op: '>=', value: 1000 },
    });
    expect(parseThreshold('steady/model-a/flex: e2e_ms.mean < 2000')).toMatchObject({
      ok: true,
      spec: { group: 'steady/model-a/flex', metric: 'e2e_ms', stat: 'mean', op: '<', value: 2000 },
    });
    expect(parseThreshold('s/org/model/-: error_rate < 0.5')).toMatchObject({
      ok: true,
      spec: { group: 's/org/model/-' },
    });
    expect(parseThreshold('s/*/-: goodput_per_s > 1')).toMatchObject({
      ok: true,
      spec: { group: 's/*/-', metric: 'goodput_per_s' },
    });
  });

  it('rejects bad expressions with a message that says why', () => {
    const bad: [string, RegExp][] = [
      ['ttft_ms.p99 = 800', /is not a threshold; expected "\[group-key:\] metric\[\.stat\] op number"/],
      ['ttft_ms.p99 < fast', /is not a threshold/],
      ['ttft_ms.p99 <', /is not a threshold/],
      ['< 5', /is not a threshold/],
      ['ttft_ms < 800', /ttft_ms needs a stat/],
      ['ttft_ms.p42 < 800', /unknown stat "p42"/],
      ['ttft.p99 < 800', /unknown metric "ttft"/],
      ['error_rate.p99 < 0.1', /error_rate is a group-level value and takes no stat/],
      ['steady: ttft_ms.p99 < 1', /group key "steady" must be "scenario\/model\/tier"/],
    ];
    for (const [expression, message] of bad) {
      const parsed = parseThreshold(expression);
      expect(parsed.ok, expression).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(message);
    }
  });
});
