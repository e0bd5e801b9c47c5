/**
 * summary.csv's group-value rows come from the registry (metrics/metric-registry.ts GROUP_VALUES), so the
 * answer-check pass rates are there for a group whose answers were checked, and absent for one whose
 * were not (a value it does not have, as thresholds read it).
 */
import { describe, expect, it } from 'vitest';
import { GROUP_VALUES } from '../../../src/metrics/metric-registry.js';
import type { GroupSummary } from '../../../src/metrics/run-summary.js';
import { parseCsvRecords } from '../../../src/util/csv-records.js';
import { formatSummaryCsv } from '../../../src/report/summary-csv.js';

function group(
  key: string,
  checks?: GroupSummary['checks'],
  inputs?: Pick<GroupSummary['throughput'], 'inputs_per_s' | 'input_tokens_per_s'>,
): GroupSummary {
  return {
    scenario: key,
    model: 'm',
    tier: null,
    key: `${key}/m/-`,
    requests: { ok: 40, failed: 0, dropped: 0, errors: {}, attempts: 40, retried: {}, error_samples: {} },
    error_rate: 0,
    throughput: { requests_per_s: 4, output_tokens_per_s: 400, total_tokens_per_s: 1200, goodput_per_s: 4, ...inputs },
    duration_ms: 10_000,
    metrics: {},
    histograms: {},
    tokens: { estimated_requests: 0, mismatched_requests: 0, max_mismatch: 0 },
    tiers_used: {},
    ...(checks === undefined ? {} : { checks }),
  };
}

describe('summary.csv group values', () => {
  it('has a row per registry group value, the pass rates only where answers were checked, input rates only where inputs were embedded', () => {
    const checked = group(
      'tools',
      {
        tool_arguments: { passed: 39, failed: 1, pass_rate: 0.975, samples: [] },
        json_schema: { passed: 10, failed: 0, pass_rate: 1, samples: [] },
      },
      { inputs_per_s: 16, input_tokens_per_s: 800 },
    );
    const rows = parseCsvRecords(formatSummaryCsv([checked, group('plain')])).records;
    const value = (key: string, metric: string): string | undefined =>
      rows.find((r) => r['group'] === key && r['metric'] === metric)?.['mean'];
    for (const name of GROUP_VALUES) expect(value('tools/m/-', name), name).not.toBeUndefined();
    expect(value('tools/m/-', 'tool_arguments_pass_rate')).toBe('0.975');
    expect(value('tools/m/-', 'json_schema_pass_rate')).toBe('1');
    expect(value('tools/m/-', 'requests_per_s')).toBe('4');
    expect(value('plain/m/-', 'error_rate')).toBe('0');
    expect(value('plain/m/-', 'tool_arguments_pass_rate')).toBeUndefined();
    expect(value('plain/m/-', 'json_schema_pass_rate')).toBeUndefined();
    expect(value('tools/m/-', 'inputs_per_s')).toBe('16');
    expect(value('tools/m/-', 'input_tokens_per_s')).toBe('800');
    expect(value('plain/m/-', 'inputs_per_s')).toBeUndefined();
    expect(value('plain/m/-', 'input_tokens_per_s')).toBeUndefined();
  });
});
