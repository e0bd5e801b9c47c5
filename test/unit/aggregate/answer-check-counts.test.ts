/**
 * A group's answer checks: counted per check name with a few distinct samples (check-accumulator.ts),
 * merged exactly across shards (check-merge.ts), absent from groups nothing was checked in, and read by
 * thresholds as tool_arguments_pass_rate / json_schema_pass_rate (null, so failing, when absent).
 */
import { describe, expect, it } from 'vitest';
import { CheckAccumulator } from '../../../src/aggregate/check-accumulator.js';
import { mergeChecks } from '../../../src/aggregate/check-merge.js';
import { thresholdValue } from '../../../src/aggregate/thresholds.js';
import { type AnswerCheck, createRequestRecord } from '../../../src/client/request-record.js';
import type { GroupSummary } from '../../../src/metrics/run-summary.js';
import type { ThresholdSpec } from '../../../src/profile/resolved-profile.js';

function checked(...checks: AnswerCheck[]) {
  return Object.assign(createRequestRecord(0, 0, 0), { status: 200, checks });
}
const pass = (name: AnswerCheck['name']): AnswerCheck => ({ name, passed: true, message: null });
const fail = (name: AnswerCheck['name'], message: string): AnswerCheck => ({ name, passed: false, message });

describe('answer check counts', () => {
  it('counts passed and failed per check, keeping the first three distinct failure messages', () => {
    const counts = new CheckAccumulator();
    counts.add(checked(pass('tool_arguments')));
    counts.add(checked(fail('tool_arguments', 'a'), pass('json_schema')));
    counts.add(checked(fail('tool_arguments', 'a')));
    counts.add(checked(fail('tool_arguments', 'b')));
    counts.add(checked(fail('tool_arguments', 'c')));
    counts.add(checked(fail('tool_arguments', 'd')));
    counts.add(createRequestRecord(1, 0, 0));
    expect(counts.summary()).toEqual({
      tool_arguments: { passed: 1, failed: 5, pass_rate: 0.166667, samples: ['a', 'b', 'c'] },
      json_schema: { passed: 1, failed: 0, pass_rate: 1, samples: [] },
    });
  });

  it('is absent when nothing was checked', () => {
    const counts = new CheckAccumulator();
    counts.add(createRequestRecord(0, 0, 0));
    expect(counts.summary()).toBeUndefined();
    expect(mergeChecks({}, {})).toEqual({});
  });

  it('merges shards exactly and in any order: counts add, the rate is recomputed, samples stay distinct and bounded', () => {
    const a = { checks: { tool_arguments: { passed: 3, failed: 1, pass_rate: 0.75, samples: ['x'] } } };
    const b = {
      checks: {
        tool_arguments: { passed: 0, failed: 4, pass_rate: 0, samples: ['x', 'y', 'z', 'w'] },
        json_schema: { passed: 2, failed: 0, pass_rate: 1, samples: [] },
      },
    };
    // Samples: the first 3 distinct messages of both in sorted order, whichever shard comes first.
    const expected = {
      checks: {
        tool_arguments: { passed: 3, failed: 5, pass_rate: 0.375, samples: ['w', 'x', 'y'] },
        json_schema: { passed: 2, failed: 0, pass_rate: 1, samples: [] },
      },
    };
    expect(mergeChecks(a, b)).toEqual(expected);
    expect(JSON.stringify(mergeChecks(b, a))).toBe(JSON.stringify(mergeChecks(a, b)));
  });

  it('thresholds read the pass rates, and have no value for a group without checks', () => {
    const spec = (metric: string): ThresholdSpec =>
      ({ expression: `${metric} >= 1`, group: null, metric, stat: null, op: '>=', value: 1 }) as ThresholdSpec;
    const group = {
      error_rate: 0,
      throughput: {},
      checks: { tool_arguments: { passed: 9, failed: 1, pass_rate: 0.9, samples: ['m'] } },
    } as unknown as GroupSummary;
    expect(thresholdValue(spec('tool_arguments_pass_rate'), group)).toBe(0.9);
    expect(thresholdValue(spec('json_schema_pass_rate'), group)).toBeNull();
    expect(thresholdValue(spec('tool_arguments_pass_rate'), { ...group, checks: undefined })).toBeNull();
  });
});
