/**
 * report.html of a capacity run in real headless Chromium via file://: the Capacity section shows each
 * group's capacity with its interval, draws the latency and exceedance charts with their SLO lines, the
 * capacity line and its band, lists every step; a run without capacity has no such section. The
 * capacity summary is a known fixture (test/fixtures/capacity-summary.ts): no search runs here.
 * Screenshots go to test-artifacts/ (gitignored).
 * @module-tag browser
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { writeHtmlReport } from '../../src/report/html/write-html-report.js';
import { makeCapacitySummary } from '../fixtures/capacity-summary.js';
import { makeRunDir } from '../fixtures/make-run.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = resolve(import.meta.dirname, '..', '..', 'test-artifacts');
/** Skipped on a developer machine without Chromium; in CI (CI=true, .ci/run installs it) a missing browser fails. */
const hasChromium = existsSync(CHROMIUM) || process.env['CI'] === 'true';
if (!hasChromium) console.warn(`SKIPPED capacity browser tests: ${CHROMIUM} is absent (.ci/run installs it)`);

/** Browser globals, typed here because the project's tsconfig has no DOM library. */
interface PlotLike {
  bbox: { left: number; top: number; width: number; height: number };
  valToPos(value: number, scale: string, canvasPixels: boolean): number;
  root: {
    querySelector(s: string): {
      width: number;
      height: number;
      getContext(kind: '2d'): {
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
      };
    };
  };
}
type ChartsGlobal = { inferbenchCharts: { id: string; series: number; chart: PlotLike }[] };

async function openOffline(
  browser: Browser,
  url: string,
): Promise<{ page: Page; errors: string[]; network: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  const network: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route('**/*', (route) => {
    const requestUrl = route.request().url();
    if (requestUrl.startsWith('file://')) return route.continue();
    network.push(requestUrl);
    return route.abort();
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() =>
    Array.isArray((globalThis as unknown as { inferbenchCharts?: unknown[] }).inferbenchCharts),
  );
  return { page, errors, network };
}

/** Per chart: id, series count and the number of canvas pixels that are not transparent. */
function chartPixels(page: Page): Promise<{ id: string; series: number; painted: number }[]> {
  return page.evaluate(() =>
    (globalThis as unknown as ChartsGlobal).inferbenchCharts.map((c) => {
      const canvas = c.chart.root.querySelector('canvas');
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if ((data[i] as number) > 0) painted++;
      return { id: c.id, series: c.series, painted };
    }),
  );
}

/** Canvas pixels (RGBA) of a chart at data x over the plot's height, at the given fractions of it. */
function columnAt(page: Page, id: string, x: number, fractions: number[]): Promise<number[][]> {
  return page.evaluate(
    ([chartId, xValue, at]) => {
      const c = (globalThis as unknown as ChartsGlobal).inferbenchCharts.find((chart) => chart.id === chartId)!;
      const u = c.chart;
      const px = Math.round(u.valToPos(xValue, 'x', true));
      const ctx = u.root.querySelector('canvas').getContext('2d');
      return at.map((f) => {
        const py = Math.round(u.bbox.top + u.bbox.height * f);
        // The darkest of three columns: the line is 1.5 px wide and anti-aliased.
        const pixels = [-1, 0, 1].map((dx) => [...ctx.getImageData(px + dx, py, 1, 1).data]);
        return pixels.reduce((best, p) => ((p[3] ?? 0) > (best[3] ?? 0) ? p : best));
      });
    },
    [id, x, fractions] as const,
  );
}

function bodyText(page: Page): Promise<string> {
  return page.evaluate(
    () => (globalThis as unknown as { document: { body: { textContent: string } } }).document.body.textContent,
  );
}

describe.skipIf(!hasChromium)('report.html of a capacity run in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  let capacityUrl: string;
  let plainUrl: string;
  const capacity = makeCapacitySummary();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inferbench-report-capacity-'));
    const run = makeRunDir(join(dir, 'capacity'), { seed: 11, models: ['capacity-8b'], tiers: [null] });
    await writeHtmlReport(run.dir, { ...run.summary, capacity }, run.timeSeries);
    capacityUrl = pathToFileURL(join(run.dir, 'report.html')).href;
    const plain = makeRunDir(join(dir, 'plain'), { seed: 11, models: ['capacity-8b'], tiers: [null] });
    await writeHtmlReport(plain.dir, plain.summary, plain.timeSeries);
    plainUrl = pathToFileURL(join(plain.dir, 'report.html')).href;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the capacity with its interval, draws its charts and lists every step, offline', async () => {
    const { page, errors, network } = await openOffline(browser, capacityUrl);
    await page.screenshot({ path: join(ARTIFACTS, 'report-capacity-full.png'), fullPage: true });
    await page.locator('#capacity').screenshot({ path: join(ARTIFACTS, 'report-capacity.png') });
    expect(errors).toEqual([]);
    expect(network).toEqual([]);

    expect(await page.locator('section#capacity h2').textContent()).toBe('Capacity');
    const text = await bodyText(page);
    expect(text).toContain('capacity 27.64 req/s (95% interval 27.03 – 29.12 req/s)');
    expect(text).toContain('capacity >= 16 streams (no interval)');
    expect(text).toContain('ttft_ms.p95 < 400 ms');
    expect(text).toContain('SLO ttft_ms.p95 < 400 ms');
    expect(text).toContain('capacity 27.64 req/s, 95% interval 27.03 – 29.12');
    expect(text).toContain('BELOW min_capacity 20 streams');

    const charts = (await chartPixels(page)).filter((c) => c.id.startsWith('capacity-'));
    const perGroup = 1 + capacity.objectives.length;
    expect(charts).toHaveLength(capacity.groups.length * perGroup);
    for (const chart of charts) {
      expect(chart.series, chart.id).toBeGreaterThanOrEqual(4);
      expect(chart.painted, `${chart.id} has painted pixels`).toBeGreaterThan(500);
    }

    const rows = page.locator('#capacity table.data tbody tr');
    expect(await rows.count()).toBe(capacity.groups.reduce((n, g) => n + g.steps.length, 0));
    const tables = page.locator('#capacity table.data');
    for (const [i, group] of capacity.groups.entries())
      expect(await tables.nth(i).locator('tbody tr').count()).toBe(group.steps.length);
    await page.close();
  });

  it('draws the capacity as an opaque line over a translucent band', async () => {
    const { page } = await openOffline(browser, capacityUrl);
    const [line] = await columnAt(page, 'capacity-latency-0', 27.64, [0.5]);
    expect(line?.[3]).toBeGreaterThan(150);
    expect(Math.max(...(line ?? []).slice(0, 3))).toBeLessThan(170);
    const band = await columnAt(page, 'capacity-exceedance-0-0', 28.8, [0.3]);
    expect(band[0]?.[3]).toBeGreaterThan(15);
    expect(band[0]?.[3]).toBeLessThan(150);
    await page.close();
  });

  it('has no Capacity section for a run without capacity', async () => {
    const { page, errors } = await openOffline(browser, plainUrl);
    expect(errors).toEqual([]);
    expect(await page.locator('#capacity').count()).toBe(0);
    expect((await chartPixels(page)).filter((c) => c.id.startsWith('capacity-'))).toEqual([]);
    expect(await page.locator('.chart-notes').count()).toBe(0);
    await page.close();
  });
});
