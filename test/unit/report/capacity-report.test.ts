/**
 * report.html's Capacity section as a document model, from a known summary.json `capacity`: the latency
 * chart's points in x order with their outcome markers, the SLO lines in ms, the capacity line over its
 * interval, each objective's exceedance with the fit's band and the allowed fraction, the steps table,
 * and no section at all for a run without capacity.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildReportDocument } from '../../../src/report/html/build-report-document.js';
import { capacityExceedanceChart, capacityLatencyChart } from '../../../src/report/html/capacity-charts.js';
import { capacityHeadline, capacitySection } from '../../../src/report/html/capacity-section.js';
import type { Block, ChartSpec, Section } from '../../../src/report/html/document-model.js';
import { CONCURRENCY_GROUP, makeCapacitySummary, RATE_GROUP } from '../../fixtures/capacity-summary.js';
import { makeRunDir } from '../../fixtures/make-run.js';

const root = mkdtempSync(join(tmpdir(), 'inferbench-capacity-unit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const summary = makeCapacitySummary();
const objectives = summary.objectives;

function blocksOf(section: Section): Block[] {
  const out: Block[] = [];
  const walk = (blocks: readonly Block[]): void => {
    for (const b of blocks) {
      out.push(b);
      if (b.kind === 'grid') walk(b.blocks);
    }
  };
  walk(section.blocks);
  return out;
}

const seriesOf = (chart: ChartSpec, label: string) => chart.series.find((s) => s.label === label)?.values;

describe('capacity latency chart', () => {
  const chart = capacityLatencyChart('lat', RATE_GROUP, objectives);

  it('puts one point per step at its achieved rate, in x order, marked by outcome', () => {
    expect(chart.x).toEqual([6.02, 6.5, 13.1, 25.1, 26.04, 26.4]);
    expect(chart.markers?.tones).toEqual(['warn', 'ok', 'ok', 'bad', 'bad', 'ok']);
    expect(seriesOf(chart, 'TTFT p99')).toEqual([71.5, 70, 90, 1500, 564.2, 300]);
    expect(seriesOf(chart, 'TTFT p50')).toEqual([52.5, 51, 60, 900, 273.4, 120]);
    expect(seriesOf(chart, 'ITL p99')).toEqual([10, 11, 12, 13, 15, 14]);
    expect(seriesOf(chart, 'E2E p99')).toEqual([171.5, 170, 190, 1600, 664.2, 400]);
    expect(chart.series.every((s) => s.pointsOnly && s.marked)).toBe(true);
    expect(chart.xLabel).toBe('achieved (req/s)');
    expect(chart.yLabel).toBe('latency (ms)');
  });

  it('draws the latency SLOs as horizontal lines in ms and the capacity as a vertical line over its interval', () => {
    expect(chart.rules).toEqual([
      { axis: 'y', value: 400, label: 'SLO ttft_ms.p95 < 400 ms', dashed: true, color: 0 },
      { axis: 'y', value: 50, label: 'SLO itl_ms.p99 < 50 ms', dashed: true, color: 2 },
      {
        axis: 'x',
        value: 27.64,
        label: 'capacity 27.64 req/s, 95% interval 27.03 – 29.12',
        short: 'capacity 27.64 req/s',
        color: 7,
        band: [27.03, 29.12],
      },
    ]);
  });

  it('uses offered streams for a concurrency search, and a dashed capacity without a band when censored', () => {
    const closed = capacityLatencyChart('lat2', CONCURRENCY_GROUP, objectives);
    expect(closed.x).toEqual([4, 8, 16]);
    expect(closed.xLabel).toBe('offered (streams)');
    const capacity = closed.rules?.find((r) => r.axis === 'x');
    expect(capacity).toEqual({
      axis: 'x',
      value: 16,
      label: 'capacity >= 16 streams',
      short: 'capacity >= 16 streams',
      color: 7,
      dashed: true,
    });
  });
});

describe('capacity exceedance chart', () => {
  const chart = capacityExceedanceChart('ex', RATE_GROUP, objectives[0]!);

  it('plots observed, fitted, low and high (%) against offered load in load order', () => {
    expect(chart.x).toEqual([6.7, 6.7, 13.4, 26.8, 29.2, 53.6]);
    expect(chart.markers?.tones).toEqual(['warn', 'ok', 'ok', 'ok', 'bad', 'bad']);
    const close = (values: readonly (number | null)[] | undefined, expected: number[]): void => {
      for (const [i, v] of expected.entries()) expect(values?.[i]).toBeCloseTo(v, 6);
    };
    close(seriesOf(chart, 'observed'), [0, 0, 0, 0, 14.3, 85.7]);
    close(seriesOf(chart, 'fitted (monotone)'), [0, 0, 0, 1, 14.3, 85.7]);
    close(seriesOf(chart, 'fit 95% low'), [0, 0, 0, 0, 5.7, 70]);
    close(seriesOf(chart, 'fit 95% high'), [5.9, 5.9, 4, 5, 31.5, 95]);
  });

  it('shades between the fit band series, with the allowed fraction and the capacity as lines', () => {
    const band = chart.bands?.[0];
    expect(chart.series[band!.upper]?.label).toBe('fit 95% high');
    expect(chart.series[band!.lower]?.label).toBe('fit 95% low');
    expect(chart.rules?.[0]).toMatchObject({ axis: 'y', value: 5, tone: 'bad' });
    expect(chart.rules?.[0]?.label).toContain('allowed 5 %');
    expect(chart.rules?.[1]).toMatchObject({ axis: 'x', value: 27.64, band: [27.03, 29.12] });
    expect(chart.yLabel).toBe('requests over 400 ms (%)');
  });

  it('reads the error fraction for error_rate', () => {
    const errors = capacityExceedanceChart('ex-err', RATE_GROUP, objectives[2]!);
    expect(errors.yLabel).toBe('failed requests (%)');
    expect(errors.series[0]?.values.at(-1)).toBeCloseTo(2, 6);
    expect(errors.rules?.[0]?.value).toBeCloseTo(5, 6);
  });
});

describe('capacity section', () => {
  const section = capacitySection(summary);
  const blocks = blocksOf(section);

  it('heads each group with the capacity, its interval and unit, ">=" when censored', () => {
    expect(capacityHeadline(RATE_GROUP)).toEqual({
      text: 'capacity 27.64 req/s (95% interval 27.03 – 29.12 req/s)',
      tone: 'ok',
    });
    expect(capacityHeadline(CONCURRENCY_GROUP).text).toBe('capacity >= 16 streams (no interval)');
    expect(capacityHeadline({ ...RATE_GROUP, capacity: null, interval: null }).text).toBe(
      'no capacity: even the lowest load tried (6.7 req/s) failed',
    );
    const kv = blocks.filter((b) => b.kind === 'kv');
    expect(kv[0]?.kind === 'kv' && kv[0].rows).toContainEqual(['Binding objective', 'ttft_ms.p95 < 400 ms']);
    expect(kv[0]?.kind === 'kv' && kv[0].rows).toContainEqual([
      'Search',
      '56.7 s, 6 steps (3 pass, 2 fail, 1 inconclusive)',
    ]);
  });

  it('has per group one latency chart, one exceedance chart per objective and a row per step', () => {
    const charts = blocks.flatMap((b) => (b.kind === 'chart' ? [b.chart.id] : []));
    expect(charts).toEqual([
      'capacity-latency-0',
      'capacity-exceedance-0-0',
      'capacity-exceedance-0-1',
      'capacity-exceedance-0-2',
      'capacity-latency-1',
      'capacity-exceedance-1-0',
      'capacity-exceedance-1-1',
      'capacity-exceedance-1-2',
    ]);
    const tables = blocks.filter((b) => b.kind === 'table');
    expect(tables.map((t) => (t.kind === 'table' ? t.rows.length : 0))).toEqual([6, 3]);
    const first = tables[0]?.kind === 'table' ? tables[0].rows[0] : [];
    expect(first).toEqual([
      '1',
      '6.7',
      { text: 'INCONCLUSIVE', tone: 'warn' },
      '6.02',
      '61',
      '52.5',
      '71.5',
      'INCONCLUSIVE: step 1 at 6.7',
    ]);
  });

  it('comes right after the Run section of a capacity run, and not at all in a plain run', () => {
    const run = makeRunDir(join(root, 'run'), { seed: 5, models: ['m'], tiers: [null] });
    const plain = buildReportDocument(run.summary, run.timeSeries);
    expect(plain.sections.map((s) => s.id)).not.toContain('capacity');
    const withCapacity = buildReportDocument({ ...run.summary, capacity: summary }, run.timeSeries);
    expect(withCapacity.sections.map((s) => s.id).slice(0, 3)).toEqual(['run', 'capacity', 'overview']);
    expect(withCapacity.sections.filter((s) => s.id !== 'capacity')).toEqual(plain.sections);
  });
});
