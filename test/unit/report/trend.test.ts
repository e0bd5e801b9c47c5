/**
 * trend: ten fixture runs with a regression planted at run 7. The runs are put in time order whatever the
 * order given, every neighbour pair gets exactly compare's verdicts, the only change points are the
 * regressions at run 7, and trend.csv holds summary.json's values.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareRuns } from '../../../src/report/compare/compare-runs.js';
import type { CompareInput } from '../../../src/report/compare/compare-runs.js';
import { loadRequestValues, loadRun } from '../../../src/report/compare/load-run.js';
import { formatTrendCsv, TREND_CSV_COLUMNS } from '../../../src/report/trend/trend-csv.js';
import { buildTrendDocument } from '../../../src/report/trend/trend-document.js';
import { findRunPaths } from '../../../src/report/trend/find-runs.js';
import { buildTrend, orderRuns, trendRunName } from '../../../src/report/trend/trend-runs.js';
import type { TrendResult } from '../../../src/report/trend/trend-runs.js';
import { makeRunDir } from '../../fixtures/make-run.js';
import type { FixtureRun } from '../../fixtures/make-run.js';
import { fakeCommit, makeTrendRuns } from '../../fixtures/trend-runs.js';

let dir = '';
let fixtures: FixtureRun[] = [];
let inputs: CompareInput[] = [];
let trend: TrendResult;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ib-trend-'));
  fixtures = makeTrendRuns(dir);
  // As the command finds them: the folder of artifacts, its runs by folder name (against time here).
  const paths = findRunPaths([dir]);
  inputs = await Promise.all(
    paths.map(async (path) => {
      const run = await loadRun(path);
      return { dir: run.dir, summary: run.summary, requests: await loadRequestValues(run.dir) };
    }),
  );
  trend = buildTrend(inputs);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('trend of ten runs with a regression planted at run 7', () => {
  it('finds every run of the artifacts folder and orders them by started_at, not by folder name', () => {
    expect(inputs.map((i) => i.summary.run_id)).toEqual(fixtures.map((_, i) => `run-${10 - i}`));
    expect(orderRuns(inputs, 'time').map((i) => i.summary.run_id)).toEqual(fixtures.map((f) => f.summary.run_id));
    expect(orderRuns(inputs, 'given').map((i) => i.summary.run_id)).toEqual(inputs.map((i) => i.summary.run_id));
  });

  it('names a run by its label, else by its commit (7 characters), else by its run id', () => {
    expect(trend.runs.map((r) => r.name)).toEqual([
      'v1.0.0',
      ...fixtures.slice(1).map((_, i) => fakeCommit(i + 2).slice(0, 7)),
    ]);
    expect(trend.runs[3]?.commit).toBe(fakeCommit(4));
    const { label: _label, commit: _commit, ...bare } = fixtures[0]!.summary;
    expect(trendRunName({ summary: bare })).toBe('run-1');
  });

  it("gives each neighbour pair exactly compare's verdicts and marks only the regressions at run 7", () => {
    const ordered = orderRuns(inputs, 'time');
    for (let i = 1; i < ordered.length; i++) {
      const pair = compareRuns(ordered[i - 1]!, ordered[i]!);
      for (const c of pair.comparisons) {
        const series = trend.series.find((s) => s.group === c.group && s.metricId === c.metricId);
        expect(series?.steps[i], `${i + 1} ${c.group} ${c.metricId}`).toEqual(c);
        expect(series?.values[i]).toBe(c.candidate);
      }
    }
    expect(trend.series.every((s) => s.steps[0] === null)).toBe(true);
    expect(trend.changePoints.length).toBeGreaterThan(0);
    expect(new Set(trend.changePoints.map((c) => c.position))).toEqual(new Set([7]));
    expect(new Set(trend.changePoints.map((c) => c.kind))).toEqual(new Set(['regression']));
    // Every latency the slowdown moved, in both groups.
    for (const group of ['steady/model-a/default', 'steady/model-a/priority'])
      for (const metricId of ['ttft_ms.p50', 'e2e_ms.p50', 'itl_ms.p50', 'tpot_ms.p50'])
        expect(
          trend.changePoints.some((c) => c.group === group && c.metricId === metricId),
          `${group} ${metricId}`,
        ).toBe(true);
  });

  it("holds each run's own values from summary.json", () => {
    const ttft = trend.series.find((s) => s.group === 'steady/model-a/default' && s.metricId === 'ttft_ms.p99');
    expect(ttft?.values).toEqual(
      fixtures.map((f) => f.summary.groups.find((g) => g.key === 'steady/model-a/default')?.metrics.ttft_ms?.p99),
    );
    const errors = trend.series.find((s) => s.group === 'steady/model-a/priority' && s.metricId === 'error_rate');
    expect(errors?.values).toEqual(fixtures.map((f) => f.summary.groups[1]?.error_rate));
  });

  it('writes trend.csv in the long form, one row per run x group x metric, with the values of summary.json', () => {
    const rows = parse(formatTrendCsv(trend), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual([...TREND_CSV_COLUMNS]);
    expect(rows).toHaveLength(10 * trend.series.length);
    for (const row of rows) {
      const fixture = fixtures[Number(row['position']) - 1]!;
      expect(row['run_id']).toBe(fixture.summary.run_id);
      expect(row['commit']).toBe(fixture.summary.commit);
      const group = fixture.summary.groups.find((g) => g.key === row['group'])!;
      const [metric, stat] = (row['metric'] as string).split('.') as [string, string | undefined];
      const expected =
        stat === undefined
          ? (group as unknown as Record<string, number>)[metric]
          : (group.metrics as Record<string, Record<string, number>>)[metric]?.[stat];
      expect(Number(row['value']), `${row['position']} ${row['group']} ${row['metric']}`).toBe(expected);
      if (row['position'] === '1') expect(row['verdict']).toBe('');
      expect(row['change_point']).toBe(row['verdict'] === 'regression' ? 'regression' : '');
    }
    const marked = rows.filter((r) => r['change_point'] !== '');
    expect(new Set(marked.map((r) => r['position']))).toEqual(new Set(['7']));
  });

  it('pins every change point on its chart at its run, with data attributes', () => {
    const doc = buildTrendDocument(trend);
    const charts = doc.sections
      .flatMap((s) => s.blocks)
      .flatMap((b) => (b.kind === 'grid' ? b.blocks : [b]))
      .flatMap((b) => (b.kind === 'chart' ? [b.chart] : []));
    expect(charts.length).toBe(new Set(trend.series.map((s) => s.metricId)).size);
    const pins = charts.flatMap((c) => (c.pins ?? []).map((p) => ({ ...p, chart: c })));
    expect(pins).toHaveLength(trend.changePoints.length);
    for (const pin of pins) {
      expect(pin.index).toBe(6);
      expect(pin.data['data-change-point']).toBe('regression');
      expect(pin.data['data-run']).toBe('7');
      expect(pin.chart.series[pin.series]?.label).toBe(pin.data['data-group']);
      expect(pin.chart.id).toBe(`trend-${pin.data['data-metric']}`);
    }
  });

  it('heads the change-points table with distinct columns: the run, the previous run, before and after values', () => {
    const doc = buildTrendDocument(trend);
    const table = doc.sections.find((s) => s.id === 'change-points')?.blocks.find((b) => b.kind === 'table');
    if (table?.kind !== 'table') throw new Error('no change-points table');
    expect(new Set(table.columns).size).toBe(table.columns.length);
    expect(table.columns.slice(0, 2)).toEqual(['run', 'previous run']);
    expect(table.rows[0]?.[1]).toBe(`6: ${trend.runs[5]?.name}`);
  });

  it('finds a run once when it is given twice (the same folder, its summary.json, a path through ..)', () => {
    const one = findRunPaths([dir])[0] as string;
    const again = findRunPaths([one, join(one, 'summary.json'), join(one, '..', basename(one)), dir]);
    expect(again).toEqual(findRunPaths([dir]));
  });

  it("takes each pair's tolerances from that pair's baseline profile, not the first run's", () => {
    // Run 6's profile (the baseline of the pair 6 -> 7) tolerates 900% on ttft_ms.p50; run 1's does not.
    const ordered = orderRuns(inputs, 'time');
    const withTolerance = (input: CompareInput, tolerance: string): CompareInput => ({
      ...input,
      summary: {
        ...input.summary,
        profile: { ...input.summary.profile, resolved: { compare: { tolerances: { 'ttft_ms.p50': tolerance } } } },
      },
    });
    const edited = ordered.map((input, i) => (i === 5 ? withTolerance(input, '900%') : input));
    const t = buildTrend(edited, { order: 'given' });
    const steps = t.series.filter((s) => s.metricId === 'ttft_ms.p50').map((s) => s.steps);
    for (const step of steps) {
      expect(step[6]?.tolerance).toBe('+900%');
      expect(step[6]?.verdict).not.toBe('regression');
      expect(step[5]?.tolerance).not.toBe('+900%');
    }
    expect(t.changePoints.some((c) => c.metricId === 'ttft_ms.p50')).toBe(false);
  });

  it('refuses fewer than two runs', () => {
    expect(() => buildTrend(inputs.slice(0, 1))).toThrow(/at least two runs/);
  });
});

describe('trend verdicts that are not regressions', () => {
  it('marks an improvement as a change point, never a regression its run could not call, and carries a run its warnings', async () => {
    const base = { models: ['model-a'], tiers: ['default'], requestsPerGroup: 150, failureRate: 0 } as const;
    const runs = [
      makeRunDir(join(dir, 'small', 'a'), { ...base, seed: 1, startedAt: '2026-11-20T01:00:00.000Z' }),
      makeRunDir(join(dir, 'small', 'b'), { ...base, seed: 2, slowdown: 1.5, startedAt: '2026-11-20T02:00:00.000Z' }),
      makeRunDir(join(dir, 'small', 'c'), { ...base, seed: 3, startedAt: '2026-11-20T03:00:00.000Z' }),
    ];
    // Run b was client-bound and dropped arrivals at its own cap: what it measured is not the target's.
    const bPath = join(runs[1]!.dir, 'summary.json');
    const b = JSON.parse(readFileSync(bPath, 'utf8'));
    b.harness.client_bottleneck = true;
    b.harness.warnings = ['event-loop delay p99 80 ms'];
    b.groups[0].requests.dropped = 12;
    writeFileSync(bPath, JSON.stringify(b));
    const loaded = await Promise.all(
      runs.map(async (r) => {
        const run = await loadRun(r.dir);
        return { dir: run.dir, summary: run.summary, requests: await loadRequestValues(run.dir) };
      }),
    );
    // Given c, a, b: ordered by time, a, b, c.
    const small = buildTrend([loaded[2]!, loaded[0]!, loaded[1]!]);
    expect(small.runs.map((r) => r.runId)).toEqual(['fixture-1', 'fixture-2', 'fixture-3']);
    const ttft = small.series.find((s) => s.metricId === 'ttft_ms.p50');
    expect(ttft?.steps[1]?.verdict).toBe('not_called');
    expect(ttft?.steps[2]?.verdict).toBe('improved');
    expect(small.changePoints.some((c) => c.position === 2)).toBe(false);
    expect(small.changePoints.filter((c) => c.metricId === 'ttft_ms.p50').map((c) => [c.position, c.kind])).toEqual([
      [3, 'improvement'],
    ]);
    expect(small.runs[1]?.warnings).toEqual([
      "this run's client may have been its own bottleneck: event-loop delay p99 80 ms",
    ]);
    expect(small.runs[0]?.warnings).toEqual([]);
    expect(small.pairNotes[0]?.notes.join(' ')).toMatch(/^not valid evidence: /);
    // --order given keeps the order of the command line.
    expect(buildTrend([loaded[2]!, loaded[0]!], { order: 'given' }).runs.map((r) => r.runId)).toEqual([
      'fixture-3',
      'fixture-1',
    ]);
  });
});
