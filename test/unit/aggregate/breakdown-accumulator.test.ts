import { describe, expect, it } from 'vitest';
import {
  BreakdownAccumulator,
  BreakdownCell,
  breakdownOverflowWarnings,
} from '../../../src/aggregate/breakdown-accumulator.js';
import { mergeBreakdowns } from '../../../src/aggregate/breakdown-merge.js';
import { createHistogram, decodeHistogram, encodeHistogram } from '../../../src/aggregate/histogram.js';
import { createRequestRecord } from '../../../src/client/request-record.js';
import type { RequestRecord } from '../../../src/client/request-record.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import type { RecordedValues } from '../../../src/metrics/request-values.js';

/** Request i: prefix p(i % 3), turn 1 + i % 2; every 7th fails; ttft = 10 ms + i ms, e2e = 100 ms + 2i ms. */
function request(i: number): [RequestRecord, RecordedValues] {
  const record = createRequestRecord(i, 0, 0);
  record.labels = { prefix: `p${i % 3}`, turn: String(1 + (i % 2)) };
  const values = createRecordedValues();
  if (i % 7 === 6) {
    record.errorClass = 'http_5xx';
    return [record, values];
  }
  values.ttft_us = (10 + i) * 1000;
  values.e2e_us = (100 + 2 * i) * 1000;
  values.input_tokens = 1000;
  values.cached_tokens = i % 3 === 0 ? 512 : 0;
  values.output_tokens = 10;
  return [record, values];
}

function accumulate(indices: readonly number[], maxValues?: number): BreakdownAccumulator {
  const acc = new BreakdownAccumulator(maxValues);
  for (const i of indices) acc.add(...request(i));
  return acc;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, k) => from + k);

describe('BreakdownAccumulator', () => {
  it('counts each (label, value) exactly: requests, outcomes, token sums, cache hit ratio', () => {
    const summary = accumulate(range(0, 42)).summary()!;
    expect(Object.keys(summary)).toEqual(['prefix', 'turn']);
    expect(Object.keys(summary.prefix!)).toEqual(['p0', 'p1', 'p2']);
    // p0: i = 0, 3, ..., 39 (14 requests), of which i = 6 and 27 failed (i % 7 == 6).
    const p0 = summary.prefix!.p0!;
    const p0Indices = range(0, 42).filter((i) => i % 3 === 0);
    const p0Failed = p0Indices.filter((i) => i % 7 === 6).length;
    expect(p0Failed).toBe(2);
    expect(p0.requests).toBe(14);
    expect(p0.failed).toBe(p0Failed);
    expect(p0.ok).toBe(14 - p0Failed);
    expect(p0.input_tokens).toBe(1000 * p0.ok);
    expect(p0.cached_tokens).toBe(512 * p0.ok);
    expect(p0.output_tokens).toBe(10 * p0.ok);
    expect(p0.cache_hit_ratio).toBe(0.512);
    expect(summary.prefix!.p1!.cache_hit_ratio).toBe(0);
    expect(p0.ttft_ms.count).toBe(p0.ok);
    // TTFT of p0's ok requests: 10 + i for i in p0Indices minus the failures; the median is within HDR precision.
    const ttfts = p0Indices.filter((i) => i % 7 !== 6).map((i) => 10 + i);
    expect(p0.ttft_ms.mean).toBeCloseTo(ttfts.reduce((a, b) => a + b, 0) / ttfts.length, 1);
    expect(decodeHistogram(p0.histograms.ttft_ms!).totalCount).toBe(p0.ok);
    const turns = summary.turn!;
    expect(turns['1']!.requests + turns['2']!.requests).toBe(42);
    expect(turns['1']!.requests).toBe(21);
  });

  it('costs nothing and reports nothing for records without labels', () => {
    const acc = new BreakdownAccumulator();
    acc.add(createRequestRecord(0, 0, 0), createRecordedValues());
    expect(acc.summary()).toBeUndefined();
    expect(acc.overflow()).toBeUndefined();
  });

  it('keeps at most maxValues values per label and counts the rest under "other"', () => {
    const acc = new BreakdownAccumulator(3);
    for (let i = 0; i < 10; i++) {
      const [record, values] = request(i);
      record.labels = { id: `v${i}` };
      acc.add(record, values);
    }
    const summary = acc.summary()!;
    expect(Object.keys(summary.id!)).toEqual(['v0', 'v1', 'v2', 'other']);
    expect(summary.id!.other!.requests).toBe(7);
    expect(acc.overflow()).toEqual({ id: 7 });
    expect(breakdownOverflowWarnings([{ key: 'g/m/-', breakdowns_overflow: acc.overflow()! }])[0]).toContain(
      'label "id" had more than 1000 values; 7 request(s)',
    );
  });
});

describe('BreakdownCell histograms (packed)', () => {
  /** Latencies spread over 1 µs .. ~2 hours (beyond the initial 1 h range: auto-resized), deterministic. */
  const spread = (n: number): number[] =>
    Array.from({ length: n }, (_, i) => Math.round(Math.exp(((i * 7919) % n) / (n / 22.7))));

  it('encode and read exactly as plain histograms of the same values, in a fraction of the memory', () => {
    const cell = new BreakdownCell();
    const plainTtft = createHistogram();
    const plainE2e = createHistogram();
    const values = spread(3000);
    values.forEach((us, i) => {
      const record = createRequestRecord(i, 0, 0);
      const recorded = createRecordedValues();
      recorded.ttft_us = us;
      recorded.e2e_us = us * 3 + 17;
      cell.add(record, recorded);
      plainTtft.recordValue(us);
      plainE2e.recordValue(us * 3 + 17);
    });
    expect(encodeHistogram(cell.ttft)).toBe(encodeHistogram(plainTtft));
    expect(encodeHistogram(cell.e2e)).toBe(encodeHistogram(plainE2e));
    for (const p of [0, 1, 50, 90, 99, 99.9, 100])
      expect(cell.ttft.getValueAtPercentile(p)).toBe(plainTtft.getValueAtPercentile(p));
    expect(cell.ttft.mean).toBe(plainTtft.mean);
    const stats = cell.stats();
    expect(stats.histograms.ttft_ms).toBe(encodeHistogram(plainTtft));
    // A cell of a few requests: a few KB packed, ~95 KB per plain histogram (counts for the whole range).
    const small = new BreakdownCell();
    for (const us of [12_000, 15_000, 230_000]) {
      const recorded = createRecordedValues();
      recorded.ttft_us = us;
      recorded.e2e_us = us * 10;
      small.add(createRequestRecord(0, 0, 0), recorded);
    }
    expect(small.ttft.estimatedFootprintInBytes + small.e2e.estimatedFootprintInBytes).toBeLessThan(8_000);
    expect(createHistogram().estimatedFootprintInBytes).toBeGreaterThan(90_000);
  });

  it('merged cells equal one cell of every request, histogram for histogram', () => {
    const all = accumulate(range(0, 300)).summary()!;
    const left = accumulate(range(0, 300).filter((i) => i % 3 === 0)).summary();
    const right = accumulate(range(0, 300).filter((i) => i % 3 !== 0)).summary();
    const merged = mergeBreakdowns({ breakdowns: left }, { breakdowns: right }).breakdowns!;
    for (const [label, values] of Object.entries(all))
      for (const [value, cell] of Object.entries(values)) expect(merged[label]![value]).toEqual(cell);
  });
});

describe('mergeBreakdowns', () => {
  it('merging two halves equals accumulating every record at once (counts, sums, stats, histograms)', () => {
    const all = accumulate(range(0, 300)).summary();
    const left = accumulate(range(0, 300).filter((i) => i % 2 === 0)).summary();
    const right = accumulate(range(0, 300).filter((i) => i % 2 === 1)).summary();
    const merged = mergeBreakdowns({ breakdowns: left }, { breakdowns: right });
    expect(merged.breakdowns_overflow).toBeUndefined();
    for (const [label, values] of Object.entries(all!)) {
      for (const [value, cell] of Object.entries(values)) {
        const got = merged.breakdowns![label]![value]!;
        const { histograms: _a, ...expected } = cell;
        const { histograms: _b, ...actual } = got;
        expect(actual).toEqual(expected);
        expect(decodeHistogram(got.histograms.e2e_ms!).totalCount).toBe(cell.ok);
      }
    }
    // Value order is natural: p0, p1, p2.
    expect(Object.keys(merged.breakdowns!.prefix!)).toEqual(['p0', 'p1', 'p2']);
  });

  it('keeps one side as it is when the other has none, and nothing when neither has any', () => {
    const one = accumulate(range(0, 10)).summary();
    expect(mergeBreakdowns({}, {})).toEqual({});
    expect(mergeBreakdowns({ breakdowns: one }, {}).breakdowns!.prefix!.p1!.requests).toBe(one!.prefix!.p1!.requests);
  });
});
