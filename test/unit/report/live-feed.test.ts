/**
 * The live dashboard's feed reading a real run collector fed hand-built records, and ticks under a
 * hand-moved clock: counts per group as the collector made them (warmup ignored, 429 apart from failures),
 * per-group windows (requests/s, tokens/s, TTFT p50/p99), one point per tick in the announced columns, the
 * history bounded by thinning, and the end message taken from a RunSummary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunCollector } from '../../../src/aggregate/run-collector.js';
import type { ProgressSnapshot, RunCollector } from '../../../src/aggregate/types.js';
import { createRequestRecord, type ErrorClass } from '../../../src/client/request-record.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import type { ResolvedGroup } from '../../../src/profile/resolved-profile.js';
import { liveEndMessage } from '../../../src/report/live/live-end.js';
import { LiveFeed, type LiveTick, MAX_CHARTED_GROUPS } from '../../../src/report/live/live-feed.js';
import { LiveSeries, thinByHalf } from '../../../src/report/live/live-series.js';
import { makeRunDir } from '../../fixtures/make-run.js';

const ORIGIN_US = 50_000_000;
const GROUPS: ResolvedGroup[] = [
  { index: 0, scenario: 'chat', model: 'model-a', tier: null, key: 'chat/model-a/-' },
  { index: 1, scenario: 'chat', model: null, tier: 'flex', key: 'chat/*/flex' },
];

/**
 * A feed on a clock the test moves (`at(ms)` sets the time since the feed's start), attached to a run
 * collector of `collectorGroups` whose run started `runStartMs` after the feed.
 */
function feedAt(groups = GROUPS, maxPoints?: number, collectorGroups = groups, runStartMs = 0) {
  let now = ORIGIN_US;
  const feed = new LiveFeed({
    profile: 'p',
    target: 'http://x',
    groups,
    nowUs: () => now,
    ...(maxPoints ? { maxPoints } : {}),
  });
  const collector = createRunCollector({
    groups: collectorGroups,
    slo: {},
    runStartUs: ORIGIN_US + runStartMs * 1000,
    groupWindows: true,
  });
  feed.attach((index) => collector.live?.(index));
  return {
    feed,
    collector,
    at: (ms: number) => {
      now = ORIGIN_US + ms * 1000;
    },
  };
}

let nextId = 0;
/** A finished request of `group` that ended `endMs` after the feed's start, to the collector; ok unless `errorClass`. */
function finish(
  collector: RunCollector,
  group: ResolvedGroup,
  endMs: number,
  options: { ttftMs?: number; tokens?: number; errorClass?: ErrorClass; warmup?: boolean } = {},
): void {
  const record = createRequestRecord(nextId++, group.index, ORIGIN_US + (endMs - 100) * 1000, options.warmup);
  record.endUs = ORIGIN_US + endMs * 1000;
  record.errorClass = options.errorClass ?? null;
  const values = createRecordedValues();
  if (!options.errorClass) {
    values.ttft_us = (options.ttftMs ?? 20) * 1000;
    values.output_tokens = options.tokens ?? 10;
  }
  collector.completed(record, values);
}

function expectNear(actual: number | null | undefined, expected: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(expected / 100);
}

function tick(elapsedMs: number, overrides: Partial<ProgressSnapshot> = {}, warmup = false): LiveTick {
  return {
    snapshot: {
      elapsedMs,
      started: 0,
      completed: 0,
      failed: 0,
      throttled: 0,
      dropped: 0,
      inFlight: 3,
      requestsPerS: 7.25,
      outputTokensPerS: 70.5,
      ttftP50Ms: 21,
      ...overrides,
    },
    scenario: 'chat',
    warmup,
    plannedMs: 10_000,
    plannedRequests: null,
  };
}

describe('live feed', () => {
  it('counts per group, warmup ignored and 429 apart from failures', () => {
    const { feed, at, collector } = feedAt();
    const [a, b] = GROUPS as [ResolvedGroup, ResolvedGroup];
    finish(collector, a, 100, { warmup: true });
    finish(collector, a, 200);
    finish(collector, a, 300);
    finish(collector, a, 400, { errorClass: 'http_5xx' });
    finish(collector, b, 500, { errorClass: 'http_429' });
    finish(collector, b, 600, { errorClass: 'http_429' });
    finish(collector, b, 700, { errorClass: 'timeout' });
    at(1000);
    const { status } = feed.tick(tick(1000));
    expect(
      status.groups.map(({ key, ok, failed, throttled, errors }) => ({ key, ok, failed, throttled, errors })),
    ).toEqual([
      { key: 'chat/model-a/-', ok: 2, failed: 1, throttled: 0, errors: { http_5xx: 1 } },
      { key: 'chat/*/flex', ok: 0, failed: 1, throttled: 2, errors: { http_429: 2, timeout: 1 } },
    ]);
  });

  it("takes the model a run resolved from the scenario start, then from the collector's groups", () => {
    const resolved = [GROUPS[0] as ResolvedGroup, { ...(GROUPS[1] as ResolvedGroup), model: 'n', key: 'chat/n/flex' }];
    let now = ORIGIN_US;
    const feed = new LiveFeed({ profile: 'p', target: 'http://x', groups: GROUPS, nowUs: () => now });
    feed.scenarioStarted([{ ...(GROUPS[1] as ResolvedGroup), model: 'm', key: 'chat/m/flex' }]);
    expect(feed.state().status.groups[1]?.key).toBe('chat/m/flex');
    // With --workers no scenario start is told: the collector's groups have their models resolved.
    const collector = createRunCollector({ groups: resolved, slo: {}, runStartUs: ORIGIN_US, groupWindows: true });
    feed.attach((index) => collector.live?.(index));
    now += 1000;
    expect(feed.state().status.groups[1]?.key).toBe('chat/n/flex');
  });

  it('gives per-group requests/s, tokens/s and TTFT p50/p99 over the last 5 seconds', () => {
    const { feed, at, collector } = feedAt();
    const a = GROUPS[0] as ResolvedGroup;
    // Second 0: 10 requests with TTFT 10..100 ms and 5 tokens each; then from second 6: 4 requests of 200 ms.
    for (let i = 1; i <= 10; i++) finish(collector, a, 100 * i - 50, { ttftMs: 10 * i, tokens: 5 });
    at(2000);
    let row = feed.tick(tick(2000)).status.groups[0];
    // 10 requests over the 2 s since second 0 began.
    expect(row?.requestsPerS).toBe(5);
    expect(row?.outputTokensPerS).toBe(25);
    // Window histograms keep 2 significant digits: within 1%.
    expectNear(row?.ttftP50Ms, 50);
    expectNear(row?.ttftP99Ms, 100);
    for (let i = 0; i < 4; i++) finish(collector, a, 6100 + i * 100, { ttftMs: 200, tokens: 1 });
    at(7000);
    row = feed.tick(tick(7000)).status.groups[0];
    // Window: seconds 3..7 (the first 10 are out of it): 4 requests over 4 s.
    expect(row?.requestsPerS).toBe(1);
    expectNear(row?.ttftP50Ms, 200);
    expect(feed.tick(tick(7000)).status.groups[1]?.requestsPerS).toBe(0);
  });

  it('aligns its windows on the run clock at the first tick', () => {
    const { feed, at, collector } = feedAt(GROUPS, undefined, GROUPS, 500);
    const a = GROUPS[0] as ResolvedGroup;
    // The run started 0.5 s after the feed: its elapsed time is the feed's minus 0.5 s.
    at(3500);
    feed.tick(tick(3000));
    finish(collector, a, 3600);
    finish(collector, a, 3700);
    at(4500);
    // Run time 4.0 s: the window is the run's seconds 0..4, 4 s long.
    expect(feed.tick(tick(4000)).status.groups[0]?.requestsPerS).toBe(0.5);
  });

  it('adds one point per tick in the announced columns, and the state carries the history', () => {
    const { feed, at, collector } = feedAt();
    finish(collector, GROUPS[0] as ResolvedGroup, 200, { ttftMs: 30 });
    at(1000);
    const first = feed.tick(tick(1000, { failed: 1, throttled: 2, dropped: 4 }, true));
    at(2000);
    feed.tick(tick(2000));
    const state = feed.state();
    expect(state.series.columns).toEqual([
      't',
      'rps',
      'otps',
      'ttft_p50',
      'in_flight',
      'failed',
      'throttled',
      'dropped',
      'g0.rps',
      'g0.otps',
      'g0.ttft_p50',
      'g0.ttft_p99',
      'g1.rps',
      'g1.otps',
      'g1.ttft_p50',
      'g1.ttft_p99',
    ]);
    expect(first.point.slice(0, 8)).toEqual([1, 7.25, 70.5, 21, 3, 1, 2, 4]);
    expectNear(first.point[10], 30);
    expect(first.point[14]).toBeNull();
    expect(first.status.state).toBe('warmup');
    expect(state.status.state).toBe('running');
    expect(state.series.data.map((column) => column.length)).toEqual(state.series.columns.map(() => 2));
    expect(state.series.data[0]).toEqual([1, 2]);
    expect(state.status).toMatchObject({ elapsedMs: 2000, plannedMs: 10_000, scenario: 'chat' });
    expect(state.end).toBeNull();
  });

  it('charts the first groups only; the others are counted in the table', () => {
    const many = Array.from({ length: MAX_CHARTED_GROUPS + 2 }, (_, index) => ({
      index,
      scenario: 's',
      model: `m${index}`,
      tier: null,
      key: `s/m${index}/-`,
    }));
    const { feed, collector } = feedAt(many);
    finish(collector, many[MAX_CHARTED_GROUPS + 1] as ResolvedGroup, 100);
    const state = feed.state();
    expect(state.series.columns).toHaveLength(8 + 4 * MAX_CHARTED_GROUPS);
    const last = state.status.groups[MAX_CHARTED_GROUPS + 1];
    expect(last).toMatchObject({ charted: false, ok: 1, requestsPerS: null, ttftP50Ms: null });
  });

  it('keeps a bounded history: past maxPoints every other point goes, the newest stays', () => {
    const { feed, at } = feedAt(GROUPS, 4);
    for (let s = 1; s <= 9; s++) {
      at(s * 1000);
      feed.tick(tick(s * 1000));
    }
    // 1..5 -> 2,4 (+5 stays) ... : never more than 4 points, always ending at the last tick.
    const times = feed.state().series.data[0] as number[];
    expect(times.length).toBeLessThanOrEqual(4);
    expect(times.at(-1)).toBe(9);
    expect(times).toEqual([...times].sort((x, y) => x - y));
  });

  it("with target.server_metrics: the server's running, waiting and KV cache as columns and status", () => {
    let now = ORIGIN_US;
    const feed = new LiveFeed({
      profile: 'p',
      target: 'http://x',
      groups: GROUPS,
      nowUs: () => now,
      serverMetrics: true,
    });
    const gauge = (last: number) => ({ kind: 'gauge', last, min: 0, max: last, mean: last, sources: [] }) as const;
    expect(feed.state().series.columns.slice(-3)).toEqual([
      'server.running',
      'server.waiting',
      'server.kv_cache_usage',
    ]);
    expect(feed.state().status.server).toMatchObject({ running: null, waiting: null, kvCacheUsage: null, atS: null });
    // A DCGM endpoint first (no queue), then the engine: each gauge from the first endpoint that has it.
    const server = [
      { url: 'http://dcgm/metrics', atS: 1, scrapesOk: 2, failures: 0, concepts: { power_w: gauge(300) } },
      {
        url: 'http://vllm/metrics',
        atS: 1.002,
        scrapesOk: 1,
        failures: 1,
        concepts: { running: gauge(4), waiting: gauge(37), kv_cache_usage: gauge(0.61) },
      },
    ];
    now += 1_000_000;
    const first = feed.tick({ ...tick(1000), server: () => server });
    expect(first.point.slice(-3)).toEqual([4, 37, 0.61]);
    expect(first.status.server).toEqual({
      running: 4,
      waiting: 37,
      kvCacheUsage: 0.61,
      atS: 1.002,
      scrapes: 4,
      failures: 1,
    });
    // A tick without a recent scrape: gaps, not the last values.
    now += 1_000_000;
    const second = feed.tick({ ...tick(2000), server: () => [{ ...server[1]!, atS: null, concepts: {} }] });
    expect(second.point.slice(-3)).toEqual([null, null, null]);
    const data = feed.state().series.data;
    expect(data.slice(-3)).toEqual([
      [4, null],
      [37, null],
      [0.61, null],
    ]);
    // A run without server metrics has neither.
    const { feed: plain } = feedAt();
    expect(plain.state().series.columns).not.toContain('server.running');
    expect(plain.tick(tick(1000)).status.server).toBeNull();
  });

  it('ends: state "ended", the end message in the state, ticks after it change nothing', () => {
    const { feed, collector } = feedAt();
    feed.tick(tick(1000));
    // A request that ends after the last tick is in the end's counts.
    finish(collector, GROUPS[0] as ResolvedGroup, 1500);
    const end = feed.end(null);
    expect(end.summary).toBeNull();
    expect(end.status).toMatchObject({ state: 'ended', groups: [{ ok: 1 }, { ok: 0 }] });
    expect(feed.ended).toBe(true);
    feed.tick(tick(2000));
    expect(feed.state().status.state).toBe('ended');
    expect(feed.state().end).toEqual(end);
  });
});

describe('live series', () => {
  it('thins by half counting back from the newest', () => {
    const odd = [1, 2, 3, 4, 5];
    thinByHalf(odd);
    expect(odd).toEqual([1, 3, 5]);
    const even = [1, 2, 3, 4, 5, 6];
    thinByHalf(even);
    expect(even).toEqual([2, 4, 6]);
  });

  it('thins every column together when a push passes maxPoints', () => {
    const series = new LiveSeries(['t', 'v'], 4);
    for (let i = 1; i <= 5; i++) series.push([i, i * 10]);
    expect(series.data().data).toEqual([
      [1, 3, 5],
      [10, 30, 50],
    ]);
    expect(() => series.push([1])).toThrow(/2 columns/);
  });
});

describe('live end message', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-live-end-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('carries per group the counts, rates and TTFT/ITL/E2E p50 and p99 of summary.json, and the thresholds', () => {
    const { summary } = makeRunDir(join(dir, 'run'), {
      seed: 5,
      failureRate: 0.1,
      thresholds: [
        { expression: 'error_rate < 0.5', group: '*', actual: 0.1, passed: true },
        { expression: 'ttft_ms.p99 < 1', group: 'steady/model-a/flex', actual: 120, passed: false },
      ],
    });
    const group = summary.groups[1];
    if (group === undefined) throw new Error('fixture has groups');
    group.requests.errors = { ...group.requests.errors, http_429: 3 };
    const end = liveEndMessage({ ...summary, complete: false, stopped: { reason: 'interrupted', at_s: 3 } }).summary;
    expect(end).toMatchObject({
      runId: summary.run_id,
      complete: false,
      stopped: 'interrupted',
      target: summary.target.base_url,
    });
    expect(end?.groups).toHaveLength(summary.groups.length);
    expect(end?.groups[1]).toEqual({
      key: group.key,
      ok: group.requests.ok,
      failed: group.requests.failed,
      throttled: 3,
      dropped: group.requests.dropped,
      errorRate: group.error_rate,
      requestsPerS: group.throughput.requests_per_s,
      outputTokensPerS: group.throughput.output_tokens_per_s,
      ttftMs: { p50: group.metrics.ttft_ms?.p50, p99: group.metrics.ttft_ms?.p99 },
      itlMs: { p50: group.metrics.itl_ms?.p50, p99: group.metrics.itl_ms?.p99 },
      e2eMs: { p50: group.metrics.e2e_ms?.p50, p99: group.metrics.e2e_ms?.p99 },
    });
    expect(group.requests.failed).toBeGreaterThan(0);
    expect(end?.thresholds).toEqual([
      { expression: 'error_rate < 0.5', group: '*', actual: 0.1, passed: true },
      { expression: 'ttft_ms.p99 < 1', group: 'steady/model-a/flex', actual: 120, passed: false },
    ]);
  });
});
