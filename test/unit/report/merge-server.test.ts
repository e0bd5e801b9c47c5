/**
 * mergeRuns and the server's side (target.server_metrics): the deployment's values, seen by the one shard
 * that scraped, are kept as that shard wrote them (summary.json `server_metrics`, each group's `server`,
 * timeseries.csv's `server_*` columns on the merged clock), never added; when several shards carry them
 * (results of an older setup), the lowest shard index's are kept and a warning names the others.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSummary, TimeSeriesPoint } from '../../../src/metrics/run-summary.js';
import { mergeRuns, type ShardResults } from '../../../src/report/merge/merge-runs.js';
import { mergeTimeSeries } from '../../../src/report/merge/merge-time-series.js';
import { fixtureServerSide, makeRunDir } from '../../fixtures/make-run.js';

const root = mkdtempSync(join(tmpdir(), 'inferbench-merge-server-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SIDE_1 = fixtureServerSide({
  running: 4,
  waiting: 3,
  kvCacheMax: 0.61,
  preemptions: 0,
  prefixHitRatio: 0.5,
  ttftP99Ms: 420,
});
const SIDE_2 = fixtureServerSide({
  running: 9,
  waiting: 7,
  kvCacheMax: 0.9,
  preemptions: 5,
  prefixHitRatio: 0.2,
  ttftP99Ms: 900,
});

/** One shard: a fixture run (one group), its position, start and server side. */
function shard(
  index: number,
  startedAt: string,
  server: typeof SIDE_1 | undefined,
  serverSeries: (second: number) => Record<string, number | null> = () => ({}),
): ShardResults {
  const run = makeRunDir(join(root, `shard-${index}-${Math.random()}`), {
    models: ['m'],
    tiers: [null],
    requestsPerGroup: 40,
    seed: index,
    runId: `run-${index}`,
    ...(server === undefined ? {} : { server }),
  });
  const summary = { ...run.summary, started_at: startedAt, shard: { index, count: 2 } } as RunSummary;
  const timeSeries: TimeSeriesPoint[] = run.timeSeries.map((p) =>
    server === undefined ? p : { ...p, server: serverSeries(p.second) },
  );
  return { dir: run.dir, summary, timeSeries };
}

describe('merge keeps the server side of the shard that scraped', () => {
  it("keeps shard 1's server_metrics, group server and series, whichever shard started first", () => {
    const one = shard(1, '2026-11-22T03:00:01.200Z', SIDE_1, (s) => ({ server_waiting: s, server_running: 4 }));
    const two = shard(2, '2026-11-22T03:00:00.000Z', undefined);
    const merged = mergeRuns([two, one], { force: false, version: 'test' });
    expect(merged.warnings).toEqual([]);
    expect(merged.summary.server_metrics).toEqual(one.summary.server_metrics);
    expect(merged.summary.groups[0]?.server).toEqual(SIDE_1);
    // Shard 1 started 1.2 s after shard 2: its second s is the merged second floor(1.2 + s).
    const rows = merged.timeSeries.filter((p) => p.server !== undefined);
    expect(rows.map((p) => [p.second, p.server?.['server_waiting']])).toEqual(
      Array.from({ length: 10 }, (_, s) => [s + 1, s]),
    );
    expect(merged.timeSeries.find((p) => p.second === 0)?.server).toBeUndefined();
  });

  it('a merge of shards that never scraped has no server side at all', () => {
    const merged = mergeRuns(
      [shard(1, '2026-11-22T03:00:00.000Z', undefined), shard(2, '2026-11-22T03:00:00.000Z', undefined)],
      {
        force: false,
        version: 'test',
      },
    );
    expect('server_metrics' in merged.summary).toBe(false);
    expect(merged.summary.groups.every((g) => g.server === undefined)).toBe(true);
    expect(merged.timeSeries.every((p) => p.server === undefined)).toBe(true);
  });

  it("two shards with server data: shard 1's kept (never summed) and a warning names the other", () => {
    const one = shard(1, '2026-11-22T03:00:00.500Z', SIDE_1, () => ({ server_waiting: 3 }));
    const two = shard(2, '2026-11-22T03:00:00.000Z', SIDE_2, () => ({ server_waiting: 7 }));
    const merged = mergeRuns([two, one], { force: false, version: 'test' });
    expect(merged.summary.groups[0]?.server).toEqual(SIDE_1);
    expect(merged.summary.server_metrics).toEqual(one.summary.server_metrics);
    // Shard 1 started 0.5 s later: its seconds land on 0..9 as shard 2's do, and every one shows shard 1's 3.
    expect(merged.timeSeries.map((p) => p.server?.['server_waiting'])).toEqual(Array(10).fill(3));
    expect(merged.warnings).toEqual([
      '2 shards scraped the server (target.server_metrics): the merged run keeps the server side of run-1 (shard 1/2) only and drops that of run-2 (shard 2/2); every shard saw the same server, so adding them would count it 2 times',
    ]);
  });
});

describe('merge and the energy per output token', () => {
  it("a shard's joules (energy_j, no J/token of its own) over every shard's output tokens", () => {
    const withEnergy = fixtureServerSide({
      running: 4,
      waiting: 3,
      kvCacheMax: 0.61,
      preemptions: 0,
      prefixHitRatio: 0.5,
      ttftP99Ms: 420,
      powerW: 350,
      energyJ: 3_600,
      energyPerOutputTokenJ: null,
    });
    const one = shard(1, '2026-11-22T03:00:00.000Z', withEnergy);
    const two = shard(2, '2026-11-22T03:00:00.000Z', undefined);
    const merged = mergeRuns([one, two], { force: false, version: 'test' });
    const tokens = (summary: RunSummary): number => {
      const stats = summary.groups[0]?.metrics.output_tokens;
      return (stats?.count ?? 0) * (stats?.mean ?? 0);
    };
    const scale = tokens(merged.summary) / tokens(one.summary);
    expect(scale).toBeGreaterThan(1.5);
    const measured = merged.summary.groups[0]?.server?.measured;
    // 3,600 J over shard 1's 12,000 phase tokens scaled to every shard's.
    expect(measured?.energy_j).toBe(3_600);
    expect(measured?.energy_per_output_token_j).toBeCloseTo(3_600 / (12_000 * scale), 12);
  });

  it("a shard written before energy_j: its J/token x its tokens are the joules, over every shard's tokens", () => {
    const withEnergy = fixtureServerSide({
      running: 4,
      waiting: 3,
      kvCacheMax: 0.61,
      preemptions: 0,
      prefixHitRatio: 0.5,
      ttftP99Ms: 420,
      powerW: 350,
      energyPerOutputTokenJ: 0.3,
    });
    const one = shard(1, '2026-11-22T03:00:00.000Z', withEnergy);
    const two = shard(2, '2026-11-22T03:00:00.000Z', undefined);
    const merged = mergeRuns([one, two], { force: false, version: 'test' });
    const tokens = (summary: RunSummary): number => {
      const stats = summary.groups[0]?.metrics.output_tokens;
      return (stats?.count ?? 0) * (stats?.mean ?? 0);
    };
    // Shard 1 wrote 0.3 J/token over its 12,000 phase tokens: 3,600 J. The merged group's output tokens are
    // about twice shard 1's (two shards of 40 requests), so the same joules spread over about twice the tokens.
    const scale = tokens(merged.summary) / tokens(one.summary);
    expect(scale).toBeGreaterThan(1.5);
    expect(scale).toBeLessThan(2.5);
    const measured = merged.summary.groups[0]?.server?.measured;
    expect(measured?.output_tokens).toBe(Math.round(12_000 * scale));
    expect(measured?.energy_per_output_token_j).toBeCloseTo(0.3 / scale, 12);
    expect((measured?.energy_per_output_token_j ?? 0) * (measured?.output_tokens ?? 0)).toBeCloseTo(3_600, 0);
    // The other concepts stay as shard 1 wrote them.
    expect(measured?.concepts).toEqual(withEnergy.measured?.concepts);
    expect(merged.warnings).toEqual([]);
  });
});

describe('mergeTimeSeries with server columns', () => {
  const point = (second: number, server?: Record<string, number | null>): TimeSeriesPoint => ({
    group: 'g',
    second,
    started: 1,
    completed: 1,
    failed: 0,
    throttled: 0,
    output_tokens: 10,
    in_flight: 1,
    ttft_p50_ms: null,
    ttft_p99_ms: null,
    e2e_p50_ms: null,
    ratelimit_remaining_requests: null,
    ratelimit_remaining_tokens: null,
    ...(server === undefined ? {} : { server }),
  });

  it('takes the server columns of the kept shard only, at its shifted second, also where another shard came first', () => {
    const merged = mergeTimeSeries([
      { offsetMs: 0, points: [point(0, { server_waiting: 99 }), point(1, { server_waiting: 98 })] },
      {
        offsetMs: 1_000,
        points: [point(0, { server_waiting: 5 }), point(1, { server_waiting: 6 })],
        keepsServer: true,
      },
    ]);
    expect(merged.map((p) => [p.second, p.completed, p.server?.['server_waiting']])).toEqual([
      [0, 1, undefined],
      [1, 2, 5],
      [2, 1, 6],
    ]);
  });
});
