/** Compare tolerances: parsing, precedence and the errors they give. */
import { describe, expect, it } from 'vitest';
import { isInferbenchError } from '../../../src/errors.js';
import {
  DEFAULT_TOLERANCES,
  parseMetricId,
  parseToleranceFlags,
  parseToleranceValue,
  resolveTolerances,
} from '../../../src/report/compare/tolerance.js';

describe('tolerances', () => {
  it('parses relative, absolute and off', () => {
    expect(parseToleranceValue('10%')).toEqual({ kind: 'relative', fraction: 0.1 });
    expect(parseToleranceValue('5ms')).toEqual({ kind: 'absolute', amount: 5 });
    expect(parseToleranceValue('1.5s')).toEqual({ kind: 'absolute', amount: 1500 });
    expect(parseToleranceValue('250us')).toEqual({ kind: 'absolute', amount: 0.25 });
    expect(parseToleranceValue('0.01')).toEqual({ kind: 'absolute', amount: 0.01 });
    expect(parseToleranceValue('off')).toEqual({ kind: 'off' });
    expect(parseToleranceValue('ten')).toBeNull();
  });

  it('knows metric ids', () => {
    expect(parseMetricId('ttft_ms.p99')).toEqual({ metric: 'ttft_ms', stat: 'p99' });
    expect(parseMetricId('error_rate')).toEqual({ metric: 'error_rate', stat: null });
    expect(parseMetricId('ttft.p99')).toMatch(/unknown metric/);
    expect(parseMetricId('ttft_ms.p98')).toMatch(/unknown stat/);
  });

  it('later sources win and off removes nothing but marks the metric off', () => {
    const t = resolveTolerances([
      { origin: 'defaults', entries: DEFAULT_TOLERANCES },
      { origin: 'profile', entries: { 'ttft_ms.p99': '20%' } },
      { origin: 'flags', entries: parseToleranceFlags(['ttft_ms.p99=5ms', 'itl_ms.p50=off']) },
    ]);
    expect(t.get('ttft_ms.p99')).toEqual({ kind: 'absolute', amount: 5 });
    expect(t.get('itl_ms.p50')).toEqual({ kind: 'off' });
    expect(t.get('error_rate')).toEqual({ kind: 'absolute', amount: 0.01 });
  });

  it('lists every bad entry at once as BAD_USAGE', () => {
    try {
      resolveTolerances([{ origin: '--tolerance', entries: { 'ttft.p99': '10%', 'e2e_ms.p50': 'lots' } }]);
      expect.unreachable();
    } catch (error) {
      expect(isInferbenchError(error) && error.code).toBe('BAD_USAGE');
      expect(String((error as Error).message)).toMatch(/ttft[\s\S]*lots/);
    }
    expect(() => parseToleranceFlags(['ttft_ms.p99'])).toThrow(/metric=value/);
  });
});
