/**
 * report.html without a browser: the embedded JSON cannot close its script tag, the page is one file with
 * no external reference, the percentile and CDF series match the histograms, and a run whose requests all
 * failed (no metrics, no histograms, no time_info) still builds a readable document.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { embedJson, renderHtmlPage } from '../../../src/report/html/page-shell.js';
import {
  cdfGrid,
  cdfSeries,
  decodeHistogram,
  percentileGrid,
  percentileSeries,
} from '../../../src/report/html/histogram-series.js';
import { buildReportDocument } from '../../../src/report/html/build-report-document.js';
import { renderHtmlReport } from '../../../src/report/html/write-html-report.js';
import type { Block, Section } from '../../../src/report/html/document-model.js';
import { makeRunDir } from '../../fixtures/make-run.js';

const root = mkdtempSync(join(tmpdir(), 'inferbench-html-unit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function blocksOf(section: Section | undefined): Block[] {
  const out: Block[] = [];
  const walk = (blocks: readonly Block[]): void => {
    for (const b of blocks) {
      out.push(b);
      if (b.kind === 'grid') walk(b.blocks);
    }
  };
  walk(section?.blocks ?? []);
  return out;
}

describe('page shell', () => {
  it('escapes < so no string can close the data script, and U+2028', () => {
    const json = embedJson({ model: '</script><script>alert(1)</script>', s: 'a\u2028b' });
    expect(json).not.toContain('<');
    expect(json).not.toContain('\u2028');
    expect(JSON.parse(json)).toEqual({ model: '</script><script>alert(1)</script>', s: 'a\u2028b' });
  });

  it('is one file: uPlot inlined, a CSP that forbids fetching, no src or href to load', () => {
    const html = renderHtmlPage({ title: 't', subtitle: 's', sections: [], footer: 'f' });
    expect(html).toContain("default-src 'none'");
    expect(html).toMatch(/var uPlot|uPlot=/);
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    expect(html.match(/<\/script>/g)).toHaveLength(3);
  });
});

describe('histogram series', () => {
  const h = build({ numberOfSignificantValueDigits: 3 });
  for (let v = 1; v <= 1000; v++) h.recordValue(v * 1000); // 1..1000 ms in µs
  const decoded = decodeHistogram(encodeIntoCompressedBase64(h), 'ttft_ms')!;

  it('decodes to milliseconds with every sample counted', () => {
    expect(decoded.totalCount).toBe(1000);
    expect(decoded.buckets.reduce((a, b) => a + b.count, 0)).toBe(1000);
    expect(decoded.valueAtPercentile(50)).toBeCloseTo(500, 0);
  });

  it('percentile series: p0 at x=1, p90 at x=10, p99 at x=100, capped at the sample size with the max', () => {
    const grid = percentileGrid();
    const series = percentileSeries(decoded, grid);
    expect(series[0]).toBeCloseTo(1, 0);
    expect(series[grid.indexOf(10)]).toBeCloseTo(900, -1);
    expect(series[grid.findIndex((x) => Math.abs(x - 100) < 1e-9)]).toBeCloseTo(990, -1);
    const firstNull = series.indexOf(null);
    expect(grid[firstNull - 1]! > 1000).toBe(true);
    expect(series[firstNull - 1]).toBeCloseTo(1000, -1);
  });

  it('CDF series rises from ~0 to 1 and never falls', () => {
    const xs = cdfGrid([decoded]);
    const ys = cdfSeries(decoded, xs).filter((y): y is number => y !== null);
    expect(ys[0]).toBeCloseTo(0.001, 3);
    expect(ys[ys.length - 1]).toBe(1);
    for (let i = 1; i < ys.length; i++) expect(ys[i]!).toBeGreaterThanOrEqual(ys[i - 1]!);
  });
});

describe('report document', () => {
  it('has a chart per plotted metric with a series per group, and units in every axis label', () => {
    const run = makeRunDir(join(root, 'ok'), { seed: 3 });
    const doc = buildReportDocument(run.summary, run.timeSeries);
    const charts = doc.sections.flatMap((s) => blocksOf(s)).filter((b) => b.kind === 'chart');
    expect(charts.length).toBe(15);
    for (const block of charts) {
      if (block.kind !== 'chart') continue;
      expect(block.chart.series.length).toBeGreaterThanOrEqual(4);
      expect(`${block.chart.xLabel} ${block.chart.yLabel}`).toMatch(/\((ms|%|s)\)|requests|tokens|percentile/);
      for (const s of block.chart.series) expect(s.values).toHaveLength(block.chart.x.length);
    }
  });

  it('a run where everything failed still renders, saying there are no samples', () => {
    const run = makeRunDir(join(root, 'failed'), { seed: 3, models: ['m'], tiers: [null] });
    const group = run.summary.groups[0]!;
    const failedSummary = {
      ...run.summary,
      groups: [
        { ...group, metrics: {}, histograms: {}, requests: { ...group.requests, ok: 0, failed: 200 }, error_rate: 1 },
      ],
    };
    const doc = buildReportDocument(failedSummary, []);
    const text = JSON.stringify(doc);
    expect(text).toContain('no samples');
    expect(text).toContain('No time series was recorded');
    expect(text).toContain('The target sent no time_info');
    expect(renderHtmlReport(failedSummary, [])).toContain('<!doctype html>');
  });
});
