/**
 * Rates of an embeddings group (records with `inputs`): inputs_per_s and input_tokens_per_s in the group's
 * throughput, thresholds on them, merged from shards; absent (and a threshold on them fails) for a group
 * that generates, whose summary keeps its shape. No TTFT, ITL or output tokens are recorded for it. Its
 * cost: estimated on inputs x input tokens (no assumed answer), each request priced on its input tokens.
 */
import { describe, expect, it } from 'vitest';
import { estimateRunSpend } from '../../../src/aggregate/cost/cost-estimate.js';
import { priceBook } from '../../../src/aggregate/cost/cost-prices.js';
import { mergeGroupSummaries } from '../../../src/aggregate/merge.js';
import { createRunCollector } from '../../../src/aggregate/run-collector.js';
import { evaluateThresholds } from '../../../src/aggregate/thresholds.js';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import { fillRecordedValues } from '../../../src/measure/request-values.js';
import { tokenCounts } from '../../../src/measure/token-counts.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import type { GroupSummary } from '../../../src/metrics/run-summary.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { costCell } from '../../../src/report/request-cost-cell.js';

const START_US = 1_000_000;

/** An embeddings answer of `inputs` inputs, `e2eMs` after request `i` was launched at i x 100 ms. */
function embedded(i: number, inputs: number, e2eMs: number, usage: boolean): RequestRecord {
  const launch = START_US + i * 100_000;
  const r = createRequestRecord(i, 0, launch);
  r.sentUs = launch;
  r.headersUs = launch + e2eMs * 1000;
  r.firstChunkUs = r.headersUs;
  r.endUs = r.headersUs;
  r.status = 200;
  r.inputs = inputs;
  r.expectedInputTokens = inputs * 10;
  if (usage) r.usage = { prompt_tokens: inputs * 11, completion_tokens: Number.NaN, total_tokens: inputs * 11 };
  return r;
}

function summarize(records: RequestRecord[]): GroupSummary {
  const profile = resolveProfileText('scenarios:\n  - { name: s, models: [m], requests: 1 }\n', 'p.yaml');
  const collector = createRunCollector({ groups: profile.groups, slo: {}, runStartUs: START_US });
  for (const r of records) {
    collector.started(0, r.sentUs);
    collector.completed(r, fillRecordedValues(r, tokenCounts(r, { output: 0, reasoning: 0 }), createRecordedValues()));
  }
  return collector.finish(records.at(-1)?.endUs ?? START_US).groups[0] as GroupSummary;
}

describe('an embeddings group', () => {
  // Ten requests of 4 inputs launched 100 ms apart, each 50 ms: the window is 0.95 s.
  const records = Array.from({ length: 10 }, (_, i) => embedded(i, 4, 50, i % 2 === 0));

  it('has inputs/s = inputs x requests/s and input tokens/s, e2e, and no TTFT, ITL or output tokens', () => {
    const group = summarize(records);
    const seconds = 0.95;
    expect(group.throughput.requests_per_s).toBe(Math.round((10 / seconds) * 1000) / 1000);
    expect(group.throughput.inputs_per_s).toBe(Math.round((40 / seconds) * 1000) / 1000);
    // usage (11 per input) for the even requests, the workload's count (10 per input) for the odd.
    expect(group.throughput.input_tokens_per_s).toBe(Math.round(((5 * 44 + 5 * 40) / seconds) * 1000) / 1000);
    expect(group.throughput.output_tokens_per_s).toBe(0);
    // HDR histograms keep 3 significant digits: 50 ms is 49.984..50.015.
    expect(group.metrics.e2e_ms?.count).toBe(10);
    expect(group.metrics.e2e_ms?.min).toBeCloseTo(50, 1);
    expect(group.metrics.e2e_ms?.max).toBeCloseTo(50, 1);
    expect(group.metrics.input_tokens).toMatchObject({ count: 10, min: 40, max: 44 });
    for (const absent of ['ttft_ms', 'ttfo_ms', 'itl_ms', 'tpot_ms', 'output_tokens', 'decode_tps'] as const)
      expect(group.metrics[absent], absent).toBeUndefined();
    expect(group.tokens.estimated_requests).toBe(5);
  });

  it('is judged by thresholds on inputs_per_s and input_tokens_per_s; a generating group has none', () => {
    const profile = resolveProfileText(
      'scenarios:\n  - { name: s, models: [m], requests: 1 }\nthresholds: ["inputs_per_s > 40", "input_tokens_per_s > 400", "e2e_ms.p99 < 60"]\n',
      'p.yaml',
    );
    const group = summarize(records);
    const results = evaluateThresholds([...profile.thresholds], [group]);
    expect(results.map((t) => [t.actual, t.passed])).toEqual([
      [42.105, true],
      [442.105, true],
      [expect.closeTo(50, 1), true],
    ]);
    const chat = summarize([{ ...embedded(0, 1, 50, true), inputs: Number.NaN }]);
    expect(chat.throughput).not.toHaveProperty('inputs_per_s');
    expect(chat.throughput).not.toHaveProperty('input_tokens_per_s');
    expect(evaluateThresholds(profile.thresholds.slice(0, 2), [chat]).map((t) => [t.actual, t.passed])).toEqual([
      [null, false],
      [null, false],
    ]);
  });

  it('merges the input rates of two shards over their window, as token rates are', () => {
    const a = summarize(records.slice(0, 5));
    const b = summarize(records.slice(5));
    const merged = mergeGroupSummaries(a, b);
    const window = Math.max(a.duration_ms, b.duration_ms) / 1000;
    expect(merged.throughput.inputs_per_s).toBeCloseTo(40 / window, 2);
    const chat = summarize([{ ...embedded(0, 1, 50, true), inputs: Number.NaN }]);
    expect(mergeGroupSummaries(chat, chat).throughput).not.toHaveProperty('inputs_per_s');
  });
});

describe('the cost of embeddings', () => {
  const book = priceBook(undefined, new Map([['m', { prompt: '0.0000002', completion: '0.0000004' }]]));

  it('estimates rate x duration x inputs x input tokens, no output tokens and no assumed answer', () => {
    const profile = resolveProfileText(
      'scenarios:\n  - name: s\n    api: embeddings\n    models: [m]\n    inputs_per_request: 4\n    load: { mode: rate, rate: 2 }\n    duration: 10s\n    prompt: { input_tokens: 100 }\n',
      'p.yaml',
    );
    const estimate = estimateRunSpend(profile, book);
    expect(estimate.requests).toBe(20);
    // 20 requests x 4 inputs x 100 tokens x 0.0000002
    expect(estimate.usd).toBe(0.0016);
    expect(estimate.notes.join()).not.toContain('output tokens assumed');
  });

  it("prices an ok request's input tokens in requests.csv (it has no output count)", () => {
    const profile = resolveProfileText('scenarios:\n  - { name: s, models: [m], requests: 1 }\n', 'p.yaml');
    const record = embedded(0, 4, 50, true);
    const values = fillRecordedValues(record, tokenCounts(record, null), createRecordedValues());
    expect(values.output_tokens).toBeNaN();
    // 44 tokens x 0.0000002
    expect(costCell(book, record, profile.groups[0]!, values)).toBe('0.0000088');
  });
});
