/**
 * SLO entries read as exceedance objectives: units that cannot be misread, percentiles to allowed
 * fractions, error rates as fractions or percentages, and every bad entry reported with its key.
 */
import { describe, expect, it } from 'vitest';
import { parseCapacitySlo } from '../../../../src/aggregate/capacity/capacity-slo.js';
import { InferbenchError } from '../../../../src/errors.js';

function problems(slo: Record<string, number | string>): InferbenchError {
  try {
    parseCapacitySlo(slo);
  } catch (error) {
    if (error instanceof InferbenchError) return error;
    throw error;
  }
  throw new Error('expected a BAD_PROFILE error');
}

describe('parseCapacitySlo', () => {
  it('reads numbers in the metric unit and strings with units, keeping the order', () => {
    expect(
      parseCapacitySlo({
        'ttft_ms.p99': 500,
        'e2e_ms.p95': '2.5s',
        'itl_ms.p99': '< 50ms',
        'tpot_ms.p90': '<=800us',
        error_rate: '1%',
      }),
    ).toEqual([
      { key: 'ttft_ms.p99', metric: 'ttft_ms', allowed: 0.01, limit: 500 },
      { key: 'e2e_ms.p95', metric: 'e2e_ms', allowed: 0.05, limit: 2500 },
      { key: 'itl_ms.p99', metric: 'itl_ms', allowed: 0.01, limit: 50 },
      { key: 'tpot_ms.p90', metric: 'tpot_ms', allowed: 0.1, limit: 0.8 },
      { key: 'error_rate', metric: 'error_rate', allowed: 0.01, limit: 0.01 },
    ]);
  });

  it('turns every percentile from p50 to p99.9 into its exact allowed fraction', () => {
    const allowed = (stat: string) => parseCapacitySlo({ [`ttft_ms.${stat}`]: 1 })[0]?.allowed;
    expect(allowed('p50')).toBe(0.5);
    expect(allowed('p99')).toBe(0.01);
    expect(allowed('p99.5')).toBe(0.005);
    expect(allowed('p999')).toBe(0.001);
    expect(allowed('p99.9')).toBe(0.001);
  });

  it('reads an error rate as a fraction or a percentage', () => {
    expect(parseCapacitySlo({ error_rate: 0.02 })[0]?.allowed).toBe(0.02);
    expect(parseCapacitySlo({ error_rate: '0.5%' })[0]?.allowed).toBe(0.005);
    expect(parseCapacitySlo({ error_rate: '0.01' })[0]?.allowed).toBe(0.01);
  });

  it('rejects every bad entry at once, naming each key', () => {
    const error = problems({
      'ttft_ms.mean': 500,
      'ttft_ms.max': 500,
      'ttft_ms.p40': 500,
      'e2e_ms.p99': '2',
      'itl_ms.p99': '50 msec',
      'tpot_ms.p99': -1,
      'decode_tps.p50': 20,
      error_rate: 1,
    });
    expect(error.code).toBe('BAD_PROFILE');
    const lines = error.message.split('\n');
    expect(lines).toHaveLength(8);
    for (const [key, reason] of [
      ['ttft_ms.mean', /percentile from p50 to p99\.9/],
      ['ttft_ms.max', /percentile/],
      ['ttft_ms.p40', /percentile/],
      ['e2e_ms.p99', /duration with its unit/],
      ['itl_ms.p99', /duration with its unit/],
      ['tpot_ms.p99', /positive number of milliseconds/],
      ['decode_tps.p50', /not "decode_tps"/],
      ['error_rate', /not a fraction below 1; for a percentage write "1%"/],
    ] as const) {
      expect(lines.find((line) => line.startsWith(`slo["${key}"]:`))).toMatch(reason);
    }
  });

  it('rejects an error rate of zero, which no number of requests can show', () => {
    expect(problems({ error_rate: '0%' }).message).toMatch(/cannot be shown/);
  });

  it('needs at least one objective', () => {
    expect(problems({}).message).toMatch(/at least one SLO/);
  });
});
