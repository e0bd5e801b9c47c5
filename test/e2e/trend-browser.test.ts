/**
 * trend.html in real headless Chromium via file://: ten runs of one profile (fixture runs with real
 * HdrHistograms, a regression planted at run 7) through `inferbench trend`; every chart draws ten points
 * per series, each change point is a visible pin at its point (run 7) carrying its data attributes, and
 * the page logs no error and fetches nothing. Screenshots go to test-artifacts/ (gitignored).
 * @module-tag browser
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeCommit, makeTrendRuns } from '../fixtures/trend-runs.js';
import {
  ARTIFACTS,
  CHROMIUM,
  bodyText,
  chartPixels,
  chartsReady,
  hasChromium,
  launchChromium,
  openOffline,
} from '../helpers/chromium.js';
import { runCliInProcess } from '../helpers/cli.js';

if (!hasChromium) console.warn(`SKIPPED browser tests: ${CHROMIUM} is absent (.ci/run installs Debian's chromium)`);

interface ChangePointJson {
  readonly position: number;
  readonly group: string;
  readonly metric: string;
  readonly kind: string;
}

/** What the page drew of a pin, read in the browser: its data attributes, its box and the point it marks. */
interface DrawnPin {
  readonly chart: string;
  readonly data: Record<string, string>;
  readonly visible: boolean;
  /** The pin's centre and its point's position, in page pixels. */
  readonly centre: readonly [number, number];
  readonly point: readonly [number, number];
}

describe.skipIf(!hasChromium)('trend.html in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  let changePoints: ChangePointJson[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inferbench-trend-browser-'));
    makeTrendRuns(join(dir, 'artifacts'));
    const result = await runCliInProcess(['trend', join(dir, 'artifacts'), '--out', join(dir, 'out'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    changePoints = (JSON.parse(result.stdout) as { change_points: ChangePointJson[] }).change_points;
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('draws ten points per series and pins the regression at run 7, offline and without errors', async () => {
    const html = readFileSync(join(dir, 'out', 'trend.html'), 'utf8');
    expect(html).not.toMatch(/<(?:script|link|img)[^>]+(?:src|href)=/i);
    expect(html).toContain("default-src 'none'");

    const { page, consoleErrors, network, dialogs } = await openOffline(
      browser,
      pathToFileURL(join(dir, 'out', 'trend.html')).href,
    );
    await chartsReady(page);
    await page.screenshot({ path: join(ARTIFACTS, 'trend-full.png'), fullPage: true });

    // Every chart: x = runs 1..10, and each series (a group) a value at every run.
    const drawn = await page.evaluate(() => {
      const w = globalThis as unknown as {
        inferbenchCharts: { id: string; chart: { data: (number | null)[][]; series: { label: string }[] } }[];
      };
      return w.inferbenchCharts.map((c) => ({
        id: c.id,
        x: c.chart.data[0],
        series: c.chart.data.slice(1).map((values, i) => ({ label: c.chart.series[i + 1]?.label, values })),
      }));
    });
    expect(drawn.map((c) => c.id)).toContain('trend-ttft_ms.p50');
    expect(drawn.map((c) => c.id)).toContain('trend-error_rate');
    for (const chart of drawn) {
      expect(chart.x, chart.id).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(chart.series.map((s) => s.label).sort(), chart.id).toEqual([
        'steady/model-a/default',
        'steady/model-a/priority',
      ]);
      for (const s of chart.series) {
        expect(s.values, `${chart.id} ${s.label}`).toHaveLength(10);
        expect(
          s.values.every((v) => typeof v === 'number' && Number.isFinite(v)),
          `${chart.id} ${s.label}`,
        ).toBe(true);
      }
    }
    for (const pixels of await chartPixels(page))
      expect(pixels.painted, `${pixels.id} has painted pixels`).toBeGreaterThan(500);

    // The change points: the regressions of run 7, each a visible pin on its point.
    expect(changePoints.length).toBeGreaterThan(0);
    expect(new Set(changePoints.map((c) => `${c.position} ${c.kind}`))).toEqual(new Set(['7 regression']));
    const pins = await page.evaluate((): DrawnPin[] => {
      interface Box {
        left: number;
        top: number;
        width: number;
        height: number;
      }
      interface Node {
        getBoundingClientRect(): Box;
        getAttributeNames(): string[];
        getAttribute(name: string): string | null;
        closest(selector: string): Node | null;
        checkVisibility(): boolean;
      }
      const w = globalThis as unknown as {
        document: { querySelectorAll(s: string): ArrayLike<Node> };
        inferbenchCharts: {
          id: string;
          chart: {
            over: Node;
            data: number[][];
            series: { label: string }[];
            valToPos(v: number, scale: string): number;
          };
        }[];
      };
      return Array.from(w.document.querySelectorAll('.chart-pin')).map((pin) => {
        const figure = pin.closest('[data-chart-id]');
        const id = figure?.getAttribute('data-chart-id') ?? '';
        const entry = w.inferbenchCharts.find((c) => c.id === id);
        const data = Object.fromEntries(
          pin
            .getAttributeNames()
            .filter((n) => n.startsWith('data-'))
            .map((n) => [n, pin.getAttribute(n) ?? '']),
        );
        const box = pin.getBoundingClientRect();
        const over = entry?.chart.over.getBoundingClientRect() ?? { left: Number.NaN, top: Number.NaN };
        const seriesIndex = entry?.chart.series.findIndex((s) => s.label === data['data-group']) ?? -1;
        const index = Number(data['data-run']) - 1;
        const x = entry?.chart.data[0]?.[index] ?? Number.NaN;
        const y = entry?.chart.data[seriesIndex]?.[index] ?? Number.NaN;
        return {
          chart: id,
          data,
          visible: pin.checkVisibility() && box.width > 0 && box.height > 0,
          centre: [box.left + box.width / 2, box.top + box.height / 2] as const,
          point: [
            over.left + (entry?.chart.valToPos(x, 'x') ?? 0),
            over.top + (entry?.chart.valToPos(y, 'y') ?? 0),
          ] as const,
        };
      });
    });
    expect(pins).toHaveLength(changePoints.length);
    expect(pins.map((p) => `${p.data['data-group']} ${p.data['data-metric']}`).sort()).toEqual(
      changePoints.map((c) => `${c.group} ${c.metric}`).sort(),
    );
    for (const pin of pins) {
      const what = `${pin.chart} ${pin.data['data-group']}`;
      expect(pin.chart, what).toBe(`trend-${pin.data['data-metric']}`);
      expect(pin.data['data-change-point'], what).toBe('regression');
      expect(pin.data['data-run'], what).toBe('7');
      expect(pin.data['data-run-name'], what).toBe(fakeCommit(7).slice(0, 7));
      expect(Number(pin.data['data-value']), what).toBeGreaterThan(Number(pin.data['data-previous']));
      expect(pin.visible, what).toBe(true);
      expect(Math.abs(pin.centre[0] - pin.point[0]), what).toBeLessThan(1.5);
      expect(Math.abs(pin.centre[1] - pin.point[1]), what).toBeLessThan(1.5);
    }

    const text = await bodyText(page);
    expect(text).toContain('10 runs');
    expect(text).toContain('v1.0.0');
    expect(text).toContain(fakeCommit(10));
    expect(consoleErrors).toEqual([]);
    expect(network).toEqual([]);
    expect(dialogs).toEqual([]);
    await page.locator('#charts').screenshot({ path: join(ARTIFACTS, 'trend-charts.png') });
    await page.close();
  });
});
