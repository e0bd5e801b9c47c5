/**
 * The run collector on hand-built records: counters by outcome (429 apart from failures), error samples,
 * warmup ignored, metric stats, token accounting (estimated, mismatched), tiers used, throughput and
 * goodput over the measured window, the per-second series, progress snapshots, and the exact merge.
 */
import { describe, expect, it } from 'vitest';
import { decodeHistogram } from '../../../src/aggregate/histogram.js';
import { mergeGroupSummaries } from '../../../src/aggregate/merge.js';
import { createRunCollector } from '../../../src/aggregate/run-collector.js';
import type { RunCollector } from '../../../src/aggregate/types.js';
import { createRequestRecord, type ErrorClass, type RequestRecord } from '../../../src/client/request-record.js';
import type { ResolvedGroup } from '../../../src/profile/resolved-profile.js';
import { fillRecordedValues } from '../../../src/measure/request-values.js';
import { tokenCounts } from '../../../src/measure/token-counts.js';
import { createRecordedValues, type RecordedValues } from '../../../src/metrics/request-values.js';
import { countTokens } from '../../../src/util/tokenizer.js';

const RUN_START_US = 10_000_000;
const GROUPS: ResolvedGroup[] = [
  { index: 0, scenario: 's', model: 'model-a', tier: 'default', key: 's/model-a/default' },
  { index: 1, scenario: 's', model: 'model-b', tier: null, key: 's/model-b/-' },
];

let nextId = 0;

/** The counts the runner hands the collector with each record (counted once, runner/record-finisher.ts). */
/** The values the runner derives once per request (token counts, then measure/request-values.ts). */
function counted(r: RequestRecord): RecordedValues {
  const tokens = tokenCounts(r, { output: countTokens(r.outputText), reasoning: countTokens(r.reasoningText) });
  return fillRecordedValues(r, tokens, createRecordedValues());
}

/**
 * An ok streamed request of group `g` starting `atMs` after the run start: ttft `ttftMs`, then one
 * token chunk every `itlMs` for `tokens` tokens (one per chunk, ' the' each: the tokenizer agrees).
 */
function okRecord(
  g: number,
  atMs: number,
  ttftMs: number,
  itlMs: number,
  tokens: number,
  extra: Partial<RequestRecord> = {},
): RequestRecord {
  const start = RUN_START_US + atMs * 1000;
  const r = createRequestRecord(nextId++, g, start);
  r.sentUs = start + 100;
  r.headersUs = start + 5_000;
  r.firstChunkUs = start + 6_000;
  r.firstTokenUs = start + ttftMs * 1000;
  r.firstOutputUs = r.firstTokenUs;
  r.tokenChunkTimesUs = Array.from({ length: tokens }, (_, i) => r.firstTokenUs + i * itlMs * 1000);
  r.lastTokenUs = r.tokenChunkTimesUs.at(-1)!;
  r.endUs = r.lastTokenUs + 1000;
  r.status = 200;
  r.outputText = ' the'.repeat(tokens);
  r.usage = { prompt_tokens: 50, completion_tokens: tokens, total_tokens: 50 + tokens };
  r.timeInfo = { queue_time: 0.001, prompt_time: 0.002, completion_time: 0.003, total_time: 0.006, created: 0 };
  r.serviceTierUsed = 'default';
  r.rateLimitRemainingRequests = 90;
  r.rateLimitRemainingTokens = 9000;
  r.expectedInputTokens = 50;
  return Object.assign(r, extra);
}

function errorRecord(g: number, atMs: number, errorClass: ErrorClass, message: string): RequestRecord {
  const start = RUN_START_US + atMs * 1000;
  const r = createRequestRecord(nextId++, g, start);
  r.sentUs = start + 100;
  r.endUs = start + 20_000;
  r.status = errorClass === 'http_429' ? 429 : errorClass === 'http_5xx' ? 500 : 0;
  r.errorClass = errorClass;
  r.errorMessage = message;
  return r;
}

function feed(collector: RunCollector, records: RequestRecord[]): void {
  for (const r of records) collector.started(r.groupIndex, r.sentUs);
  for (const r of records) collector.completed(r, counted(r));
}

describe('run collector', () => {
  it('counts every attempt and the failed ones a retry recovered from, 429 answers with the throttled', () => {
    const collector = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US });
    const recovered = okRecord(0, 0, 100, 10, 5, { attempts: 3, retriedErrors: ['http_429', 'http_5xx'] });
    const plain = okRecord(0, 50, 100, 10, 5, { attempts: 1 });
    const gaveUp = errorRecord(0, 100, 'http_429', 'quota');
    gaveUp.attempts = 2;
    gaveUp.retriedErrors = ['http_429'];
    feed(collector, [recovered, plain, gaveUp]);
    expect(collector.progress(RUN_START_US + 1_000_000).throttled).toBe(3);
    const { groups, timeSeries } = collector.finish(RUN_START_US + 2_000_000);
    const g = groups[0]!;
    expect(g.requests.ok).toBe(2);
    expect(g.requests.failed).toBe(0);
    expect(g.requests.errors).toEqual({ http_429: 1 });
    expect(g.requests.attempts).toBe(6);
    expect(g.requests.retried).toEqual({ http_429: 2, http_5xx: 1 });
    expect(timeSeries.filter((p) => p.group === g.key).reduce((sum, p) => sum + p.throttled, 0)).toBe(3);
  });

  it("keeps the first groups' last seconds only when a live view asks (groupWindows), so a plain run pays nothing for them", () => {
    const plain = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US });
    const live = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US, groupWindows: true });
    for (const collector of [plain, live])
      feed(collector, [okRecord(0, 0, 100, 10, 11), okRecord(0, 100, 200, 10, 11)]);
    expect(plain.live?.(0)?.window).toBeNull();
    expect(plain.live?.(0)?.ok).toBe(2);
    const window = live.live?.(0)?.window;
    expect(window).not.toBeNull();
    expect(window?.read(0).ended).toBe(2);
  });

  it('counts outcomes per group, keeps 429 apart from failures, samples messages, ignores warmup', () => {
    const collector = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US });
    const warm = okRecord(0, 0, 999, 1, 3);
    warm.warmup = true;
    collector.completed(warm, counted(warm));
    feed(collector, [
      okRecord(0, 0, 100, 10, 11),
      okRecord(0, 100, 200, 10, 11),
      errorRecord(0, 200, 'http_429', 'quota'),
      errorRecord(0, 300, 'http_5xx', 'boom 1'),
      errorRecord(0, 310, 'http_5xx', 'boom 2'),
      errorRecord(0, 320, 'http_5xx', 'boom 2'),
      errorRecord(0, 330, 'http_5xx', 'boom 3'),
      errorRecord(0, 340, 'http_5xx', 'boom 4'),
      errorRecord(0, 350, 'timeout', 'first token'),
    ]);
    collector.dropped(0, RUN_START_US + 360_000);
    const { groups } = collector.finish(RUN_START_US + 2_000_000);
    const g = groups[0]!;
    expect(g.key).toBe('s/model-a/default');
    expect(g.requests).toEqual({
      ok: 2,
      failed: 6,
      dropped: 1,
      errors: { http_429: 1, http_5xx: 5, timeout: 1 },
      attempts: 0,
      retried: {},
      error_samples: { http_429: ['quota'], http_5xx: ['boom 1', 'boom 2', 'boom 3'], timeout: ['first token'] },
    });
    expect(g.error_rate).toBeCloseTo(6 / 8, 12);
    expect(g.tiers_used).toEqual({ default: 2 });
    // Warmup (ttft 999) is nowhere.
    expect(g.metrics.ttft_ms!.count).toBe(2);
    expect(g.metrics.ttft_ms!.max).toBeLessThan(201);
    expect(groups[1]!.requests.ok).toBe(0);
    expect(groups[1]!.metrics).toEqual({});
  });

  it('metric stats per definition and histograms that decode to the same counts', () => {
    const collector = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US });
    // 100 requests: ttft 100..199 ms, 21 tokens every 5 ms -> e2e = ttft + 101 ms, tpot 5.05 ms.
    const records = Array.from({ length: 100 }, (_, i) => okRecord(0, i * 10, 100 + i, 5, 21));
    feed(collector, records);
    const g = collector.finish(RUN_START_US + 3_000_000).groups[0]!;
    const near = (actual: number | undefined, expected: number): void =>
      expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(expected * 0.001 + 0.001);
    near(g.metrics.ttft_ms!.p50, 149);
    near(g.metrics.ttft_ms!.min, 100);
    near(g.metrics.ttft_ms!.max, 199);
    near(g.metrics.ttfb_ms!.p99, 5);
    near(g.metrics.itl_ms!.p50, 5);
    expect(g.metrics.itl_ms!.count).toBe(2000);
    near(g.metrics.e2e_ms!.p50, 250);
    near(g.metrics.tpot_ms!.p50, 5.05);
    near(g.metrics.decode_tps!.p50, 20 / 0.101);
    near(g.metrics.total_time_ms!.p50, 6);
    near(g.metrics.queue_time_ms!.p50, 1);
    near(g.metrics.client_overhead_ms!.p50, 244);
    near(g.metrics.schedule_lag_ms!.max, 0.1);
    expect(g.metrics.output_tokens).toMatchObject({ count: 100, min: 21, max: 21, mean: 21 });
    expect(g.metrics.input_tokens!.p50).toBe(50);
    expect(g.metrics.reasoning_tokens).toBeUndefined();
    const itl = decodeHistogram(g.histograms.itl_ms!);
    expect(itl.totalCount).toBe(2000);
    expect(decodeHistogram(g.histograms.ttft_ms!).totalCount).toBe(100);
    // Measured window: first intended start (0) to last end (990 + 199 + 100 + 1 ms).
    expect(g.duration_ms).toBeCloseTo(1290, 3);
    expect(g.throughput.requests_per_s).toBeCloseTo(100 / 1.29, 2);
    expect(g.throughput.output_tokens_per_s).toBeCloseTo(2100 / 1.29, 2);
    expect(g.throughput.total_tokens_per_s).toBeCloseTo(7100 / 1.29, 2);
    expect(g.throughput.goodput_per_s).toBe(g.throughput.requests_per_s);
    expect(g.tokens).toEqual({ estimated_requests: 0, mismatched_requests: 0, max_mismatch: 0 });
  });

  it('goodput counts only ok requests meeting every SLO', () => {
    const collector = createRunCollector({
      groups: GROUPS,
      slo: { 'ttft_ms.p99': 150, 'itl_ms.p99': 8 },
      runStartUs: RUN_START_US,
    });
    feed(collector, [
      okRecord(0, 0, 100, 5, 10), // good
      okRecord(0, 0, 160, 5, 10), // ttft too high
      okRecord(0, 0, 100, 9, 10), // its own p99 gap too high
      okRecord(0, 0, 140, 7, 10), // good
      errorRecord(0, 0, 'http_5xx', 'x'),
    ]);
    const g = collector.finish(RUN_START_US + 1_000_000).groups[0]!;
    const seconds = g.duration_ms / 1000;
    expect(g.throughput.goodput_per_s).toBeCloseTo(2 / seconds, 2);
    expect(g.throughput.requests_per_s).toBeCloseTo(4 / seconds, 2);
  });

  it('token accounting: estimates without usage, mismatches against the received text', () => {
    const collector = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US });
    const noUsage = okRecord(1, 0, 100, 5, 12, { usage: null });
    const overReported = okRecord(1, 0, 100, 5, 12);
    overReported.usage = { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 };
    const slightlyOff = okRecord(1, 0, 100, 5, 12);
    slightlyOff.usage = { prompt_tokens: 50, completion_tokens: 13, total_tokens: 63 };
    feed(collector, [noUsage, overReported, slightlyOff, okRecord(1, 0, 100, 5, 12)]);
    const g = collector.finish(RUN_START_US + 1_000_000).groups[1]!;
    expect(g.tokens).toEqual({ estimated_requests: 1, mismatched_requests: 1, max_mismatch: 8 });
    // The estimate is the tokenizer count of ' the' x 12 = 12 tokens.
    expect(g.metrics.output_tokens).toMatchObject({ count: 4, min: 12, max: 20 });
  });

  it('per-second series: starts, ends, failures, 429s, tokens, in flight, latency percentiles, headroom', () => {
    const collector = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US });
    const a = okRecord(0, 100, 100, 10, 5); // ends at ~0.241 s
    const b = okRecord(0, 200, 300, 10, 5, { rateLimitRemainingRequests: 42 }); // ends ~0.541 s
    const c = okRecord(0, 900, 200, 10, 5); // ends ~1.141 s
    const d = errorRecord(0, 2500, 'http_429', 'q'); // ends 2.52 s
    const e = errorRecord(0, 2600, 'reset', 'r'); // ends 2.62 s
    for (const r of [a, b, c]) collector.started(0, r.sentUs);
    collector.completed(a, counted(a));
    collector.completed(b, counted(b));
    collector.completed(c, counted(c));
    collector.started(0, d.sentUs);
    collector.started(0, e.sentUs);
    const late = okRecord(0, 2600, 100, 10, 5);
    collector.started(0, late.sentUs);
    collector.completed(d, counted(d));
    collector.completed(e, counted(e));
    const progress = collector.progress(RUN_START_US + 2_700_000);
    expect(progress).toMatchObject({ started: 6, completed: 5, failed: 1, throttled: 1, dropped: 0, inFlight: 1 });
    expect(progress.elapsedMs).toBe(2700);
    expect(progress.requestsPerS).toBeCloseTo(5 / 2.7, 6);
    expect(progress.outputTokensPerS).toBeCloseTo(15 / 2.7, 6);
    expect(Math.abs(progress.ttftP50Ms! - 200)).toBeLessThanOrEqual(2);
    // Progress covers the last 5 seconds only: at 8.5 s nothing ended since 3.5 s.
    const later = collector.progress(RUN_START_US + 8_500_000);
    expect(later.ttftP50Ms).toBeNull();
    expect(later.requestsPerS).toBe(0);
    const { timeSeries } = collector.finish(RUN_START_US + 3_000_000);
    const rows = timeSeries.filter((p) => p.group === 's/model-a/default');
    expect(rows.map((p) => p.second)).toEqual([0, 1, 2]);
    expect(rows.map((p) => p.started)).toEqual([3, 0, 3]);
    expect(rows.map((p) => p.completed)).toEqual([2, 1, 2]);
    expect(rows.map((p) => p.failed)).toEqual([0, 0, 1]);
    expect(rows.map((p) => p.throttled)).toEqual([0, 0, 1]);
    expect(rows.map((p) => p.output_tokens)).toEqual([10, 5, 0]);
    expect(rows.map((p) => p.in_flight)).toEqual([1, 0, 1]);
    // Per-second histograms keep 2 significant digits (1%): enough for a chart.
    const within1pct = (actual: number | null, expected: number): void =>
      expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(expected * 0.01);
    within1pct(rows[0]!.ttft_p50_ms, 100);
    within1pct(rows[0]!.ttft_p99_ms, 300);
    within1pct(rows[0]!.e2e_p50_ms, 141);
    expect(rows[0]!.ratelimit_remaining_requests).toBe(42);
    expect(rows[1]!.ratelimit_remaining_tokens).toBe(9000);
    expect(rows[2]!.ttft_p50_ms).toBeNull();
    expect(timeSeries.filter((p) => p.group === 's/model-b/-')).toEqual([]);
  });

  it('merge of two summaries equals the summary of the union', () => {
    const part1 = Array.from({ length: 300 }, (_, i) => okRecord(0, i, 50 + (i % 97), 3 + (i % 5), 8 + (i % 13)));
    const part2 = Array.from({ length: 200 }, (_, i) => okRecord(0, i, 400 + (i % 31), 20 + (i % 7), 30));
    part2.push(errorRecord(0, 5, 'http_5xx', 'late'));
    const one = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US });
    const two = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US });
    const all = createRunCollector({ groups: GROUPS, slo: {}, runStartUs: RUN_START_US });
    feed(one, part1);
    feed(two, part2);
    feed(all, [...part1, ...part2]);
    const merged = mergeGroupSummaries(one.finish(0).groups[0]!, two.finish(0).groups[0]!);
    const union = all.finish(0).groups[0]!;
    expect(merged.metrics).toEqual(union.metrics);
    for (const metric of Object.keys(union.histograms) as (keyof typeof union.histograms)[]) {
      const m = decodeHistogram(merged.histograms[metric]!);
      const u = decodeHistogram(union.histograms[metric]!);
      expect(m.totalCount).toBe(u.totalCount);
      for (const p of [0, 50, 90, 99, 100]) expect(m.getValueAtPercentile(p)).toBe(u.getValueAtPercentile(p));
    }
    expect(merged.requests).toEqual(union.requests);
    expect(merged.error_rate).toBeCloseTo(union.error_rate, 12);
    expect(merged.tokens).toEqual(union.tokens);
    expect(merged.tiers_used).toEqual(union.tiers_used);
  });
});
