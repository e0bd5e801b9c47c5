/**
 * Headless Chromium (Debian's, at /usr/bin/chromium, driven by playwright-core) for the browser tests of
 * inferbench's HTML pages: launch it, open a page offline (every request but file:// recorded and aborted,
 * console errors and dialogs recorded), and read what the page script drew (window.inferbenchCharts).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of the browser tests (gitignored). */
export const ARTIFACTS = resolve(import.meta.dirname, '..', '..', 'test-artifacts');
/** Skipped on a developer machine without Chromium; in CI (CI=true, .ci/run installs it) a missing browser fails. */
export const hasChromium = existsSync(CHROMIUM) || process.env['CI'] === 'true';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Opens a page with every network request routed: file:// passes, anything else is recorded and aborted. */
export async function openOffline(
  browser: Browser,
  url: string,
): Promise<{ page: Page; consoleErrors: string[]; network: string[]; dialogs: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const consoleErrors: string[] = [];
  const network: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.route('**/*', (route) => {
    const requestUrl = route.request().url();
    if (requestUrl.startsWith('file://')) return route.continue();
    network.push(requestUrl);
    return route.abort();
  });
  page.on('request', (r) => {
    if (!r.url().startsWith('file://') && !network.includes(r.url())) network.push(r.url());
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, consoleErrors, network, dialogs };
}

/** Per chart: id, uPlot series count and how many canvas pixels are not transparent. */
export async function chartPixels(page: Page): Promise<{ id: string; series: number; painted: number }[]> {
  return page.evaluate(() => {
    // Browser globals, typed here because the project's tsconfig has no DOM library.
    interface Canvas {
      width: number;
      height: number;
      getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
    }
    const w = globalThis as unknown as {
      inferbenchCharts: { id: string; series: number; chart: { root: { querySelector(s: string): Canvas } } }[];
    };
    return w.inferbenchCharts.map((c) => {
      const canvas = c.chart.root.querySelector('canvas');
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if ((data[i] as number) > 0) painted++;
      return { id: c.id, series: c.series, painted };
    });
  });
}

/** Waits until the page script has drawn its charts. */
export function chartsReady(page: Page): Promise<unknown> {
  return page.waitForFunction(() =>
    Array.isArray((globalThis as unknown as { inferbenchCharts?: unknown[] }).inferbenchCharts),
  );
}

/** The page's visible text. */
export function bodyText(page: Page): Promise<string> {
  return page.evaluate(
    () => (globalThis as unknown as { document: { body: { textContent: string } } }).document.body.textContent,
  );
}
