/**
 * Merging shards gives the same summary whatever their order (and grouping): histograms, counters, error
 * samples, answer checks with their samples, and per-label breakdowns, including a label whose values
 * overflow the bound only in the union (the values kept are the first in natural order, not the first
 * shard's). Compared as JSON, so key order counts too.
 */
import { describe, expect, it } from 'vitest';
import { BreakdownAccumulator } from '../../../src/aggregate/breakdown-accumulator.js';
import { mergeBreakdowns } from '../../../src/aggregate/breakdown-merge.js';
import { mergeGroupSummaries } from '../../../src/aggregate/merge.js';
import { createRunCollector } from '../../../src/aggregate/run-collector.js';
import { createRequestRecord, type ErrorClass, type RequestRecord } from '../../../src/client/request-record.js';
import { fillRecordedValues } from '../../../src/measure/request-values.js';
import { tokenCounts } from '../../../src/measure/token-counts.js';
import { MAX_VALUES_PER_LABEL } from '../../../src/metrics/breakdown-summary.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import type { GroupSummary } from '../../../src/metrics/run-summary.js';
import type { ResolvedGroup } from '../../../src/profile/resolved-profile.js';

const RUN_START_US = 10_000_000;
const GROUPS: ResolvedGroup[] = [{ index: 0, scenario: 's', model: 'm', tier: null, key: 's/m/-' }];

/** Request i of a shard seeded `seed`: ok with labels and a check (every 5th fails), or an error (every 9th). */
function record(seed: number, i: number): RequestRecord {
  const start = RUN_START_US + i * 7_000;
  const r = createRequestRecord(i, 0, start);
  r.sentUs = start + 100;
  r.labels = { turn: String(1 + ((i + seed) % 4)), prefix: `p${(i * seed) % 5}` };
  if (i % 9 === 8) {
    const errorClass: ErrorClass = seed % 2 === 0 ? 'http_5xx' : 'timeout';
    r.status = errorClass === 'http_5xx' ? 500 : 0;
    r.errorClass = errorClass;
    r.errorMessage = `failure ${seed}-${i % 4}`;
    r.endUs = start + 20_000;
    return r;
  }
  r.status = 200;
  r.headersUs = start + 4_000;
  r.firstChunkUs = start + 5_000;
  r.firstTokenUs = start + 9_000 + ((i * 37 * seed) % 50_000);
  r.firstOutputUs = r.firstTokenUs;
  r.tokenChunkTimesUs = Array.from({ length: 6 }, (_, k) => r.firstTokenUs + k * (2_000 + seed * 100));
  r.lastTokenUs = r.tokenChunkTimesUs.at(-1) ?? r.firstTokenUs;
  r.endUs = r.lastTokenUs + 500;
  r.outputText = ' the'.repeat(6);
  r.usage = { prompt_tokens: 40, completion_tokens: 6, total_tokens: 46 };
  r.expectedInputTokens = 40;
  r.checks =
    i % 5 === 4
      ? [{ name: 'tool_arguments', passed: false, message: `lookup: arguments /id must be integer (${seed}.${i % 3})` }]
      : [{ name: 'tool_arguments', passed: true, message: null }];
  return r;
}

function shard(seed: number, count: number): GroupSummary {
  const collector = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US });
  const records = Array.from({ length: count }, (_, i) => record(seed, i));
  for (const r of records) collector.started(0, r.sentUs);
  for (const r of records) {
    const tokens = tokenCounts(r, { output: 6, reasoning: 0 });
    collector.completed(r, fillRecordedValues(r, tokens, createRecordedValues()));
  }
  const group = collector.finish(RUN_START_US + count * 7_000 + 100_000).groups[0];
  if (group === undefined) throw new Error('no group');
  return group;
}

describe('merge order', () => {
  it('merging shards in either order, or grouped either way, gives the same summary', () => {
    const [a, b, c] = [shard(2, 90), shard(3, 70), shard(5, 50)];
    expect(a.checks?.tool_arguments?.samples.length).toBe(3);
    expect(a.breakdowns?.turn).toBeDefined();
    const ab = JSON.stringify(mergeGroupSummaries(a, b));
    expect(JSON.stringify(mergeGroupSummaries(b, a))).toBe(ab);
    const three = JSON.stringify(mergeGroupSummaries(mergeGroupSummaries(a, b), c));
    expect(JSON.stringify(mergeGroupSummaries(c, mergeGroupSummaries(b, a)))).toBe(three);
    expect(JSON.stringify(mergeGroupSummaries(mergeGroupSummaries(c, a), b))).toBe(three);
    const merged = mergeGroupSummaries(a, b);
    expect(merged.checks?.tool_arguments?.failed).toBe(
      (a.checks?.tool_arguments?.failed ?? 0) + (b.checks?.tool_arguments?.failed ?? 0),
    );
    expect(Object.keys(merged.requests.errors)).toEqual(['http_5xx', 'timeout']);
  });

  it('a label over the bound only in the union keeps the same values whichever shard comes first', () => {
    const cells = (from: number, to: number) => {
      const acc = new BreakdownAccumulator();
      // Failed requests: cells without latencies (no histograms to encode), so 2,000 cells stay quick.
      for (let v = from; v < to; v++) {
        const r = createRequestRecord(v, 0, 0);
        r.status = 500;
        r.errorClass = 'http_5xx';
        r.labels = { id: `v${v}` };
        acc.add(r, createRecordedValues());
      }
      return { breakdowns: acc.summary() };
    };
    const a = cells(0, 700);
    const b = cells(300, 300 + MAX_VALUES_PER_LABEL);
    const ab = mergeBreakdowns(a, b);
    expect(JSON.stringify(mergeBreakdowns(b, a))).toBe(JSON.stringify(ab));
    const ids = Object.keys(ab.breakdowns?.id ?? {});
    // v0 .. v999 in natural order, then `other` with the 300 values beyond the bound (one request each).
    expect(ids).toHaveLength(MAX_VALUES_PER_LABEL + 1);
    expect(ids.slice(0, 2)).toEqual(['v0', 'v1']);
    expect(ids.at(-2)).toBe(`v${MAX_VALUES_PER_LABEL - 1}`);
    expect(ids.at(-1)).toBe('other');
    expect(ab.breakdowns?.id?.other?.requests).toBe(300);
    expect(ab.breakdowns_overflow).toEqual({ id: 300 });
  });
});
