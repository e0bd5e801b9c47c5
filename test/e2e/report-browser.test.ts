/**
 * report.html in real headless Chromium via file://: no console errors, no network, every chart drawn,
 * key numbers present, hostile strings from the profile and the server shown as text and never run.
 * Screenshots go to test-artifacts/ (gitignored).
 * @module-tag browser
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { HOSTILE_ERROR, HOSTILE_MODEL, makeRunDir } from '../fixtures/make-run.js';
import type { FixtureRun } from '../fixtures/make-run.js';
import { writeHtmlReport } from '../../src/report/html/write-html-report.js';
import { fmt } from '../../src/report/html/document-model.js';
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
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import type { RunSummary } from '../../src/metrics/run-summary.js';

const emulators = useInProcessEmulators();
if (!hasChromium) console.warn(`SKIPPED browser tests: ${CHROMIUM} is absent (.ci/run installs Debian's chromium)`);

describe.skipIf(!hasChromium)('report.html in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  let run: FixtureRun;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inferbench-report-'));
    run = makeRunDir(join(dir, 'run'), { seed: 11 });
    await writeHtmlReport(run.dir, run.summary, run.timeSeries);
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders offline with every chart drawn, key numbers shown and hostile strings inert', async () => {
    const html = readFileSync(join(run.dir, 'report.html'), 'utf8');
    // The hostile strings exist only inside the JSON, escaped: no raw "<script>alert" anywhere in the file.
    expect(html).not.toContain('<script>alert');
    expect(html).not.toMatch(/<img src=x/);
    expect(html).not.toMatch(/<(?:script|link|img)[^>]+(?:src|href)=/i);

    const { page, consoleErrors, network, dialogs } = await openOffline(
      browser,
      pathToFileURL(join(run.dir, 'report.html')).href,
    );
    await chartsReady(page);
    await page.screenshot({ path: join(ARTIFACTS, 'report-full.png'), fullPage: true });

    expect(consoleErrors).toEqual([]);
    expect(network).toEqual([]);
    expect(dialogs).toEqual([]);

    const charts = await chartPixels(page);
    // 4 percentile distributions + 4 CDFs + 5 time series + 2 rate-limit charts.
    expect(charts.map((c) => c.id).sort()).toEqual(
      [
        'cdf-e2e_ms',
        'cdf-itl_ms',
        'cdf-tpot_ms',
        'cdf-ttft_ms',
        'dist-e2e_ms',
        'dist-itl_ms',
        'dist-tpot_ms',
        'dist-ttft_ms',
        'ts-errors',
        'ts-inflight',
        'ts-ratelimit-requests',
        'ts-ratelimit-tokens',
        'ts-throughput',
        'ts-tokens',
        'ts-ttft',
      ].sort(),
    );
    for (const chart of charts) {
      expect(chart.series, chart.id).toBeGreaterThanOrEqual(run.summary.groups.length);
      expect(chart.painted, `${chart.id} has painted pixels`).toBeGreaterThan(500);
    }

    const text = await bodyText(page);
    expect(text).toContain(run.summary.run_id);
    expect(text).toContain(run.summary.workload_hash);
    expect(text).toContain('thresholds: 1 of 2 FAILED');
    for (const group of run.summary.groups) {
      expect(text).toContain(group.key);
      expect(text).toContain(fmt(group.metrics.ttft_ms?.p50));
      expect(text).toContain(fmt(group.metrics.e2e_ms?.p99));
    }
    // Shown as text, verbatim, and not turned into elements.
    expect(text).toContain(HOSTILE_MODEL);
    expect(text).toContain(HOSTILE_ERROR);
    expect(await page.locator('main script').count()).toBe(0);
    expect(await page.locator('main img').count()).toBe(0);
    // The time_info breakdown drew a segment per component for each group.
    expect(await page.locator('.stack .segment').count()).toBe(run.summary.groups.length * 4);

    await page.locator('#distributions').screenshot({ path: join(ARTIFACTS, 'report-distributions.png') });
    await page.close();
  });
});

describe.skipIf(!hasChromium)('report.html of a real run and compare.html in headless Chromium', () => {
  let browser: Browser;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inferbench-report-real-'));
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a real run against the emulator (2 models x 2 tiers) renders every chart', async () => {
    const profile = join(dir, 'matrix.yaml');
    writeFileSync(
      profile,
      `name: browser-matrix
scenarios:
  - name: matrix
    models: [small-fast-8b, large-70b]
    tiers: [priority, flex]
    load: { mode: concurrency, concurrency: 2 }
    requests: 12
    prompt: { input_tokens: 64, output_tokens: 16 }
    seed: 3
`,
    );
    const out = join(dir, 'run');
    const result = await runCliInProcess(['run', profile, '--out', out, '--quiet'], {
      cwd: dir,
      target: await emulators.start(),
    });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.groups).toHaveLength(4);

    const { page, consoleErrors, network, dialogs } = await openOffline(
      browser,
      pathToFileURL(join(out, 'report.html')).href,
    );
    await chartsReady(page);
    await page.screenshot({ path: join(ARTIFACTS, 'report-real-run.png'), fullPage: true });
    expect(consoleErrors).toEqual([]);
    expect(network).toEqual([]);
    expect(dialogs).toEqual([]);
    const charts = await chartPixels(page);
    expect(charts.length).toBeGreaterThanOrEqual(13);
    for (const chart of charts) {
      expect(chart.series, chart.id).toBeGreaterThanOrEqual(1);
      expect(chart.painted, `${chart.id} has painted pixels`).toBeGreaterThan(500);
    }
    const text = await bodyText(page);
    expect(text).toContain(summary.run_id);
    expect(text).toContain('Across tiers and models');
    for (const group of summary.groups) {
      expect(text).toContain(group.key);
      expect(text).toContain(fmt(group.metrics.ttft_ms?.p50));
    }
    await page.close();
  });

  it('compare.html overlays baseline and candidate per group and metric, offline, hostile names inert', async () => {
    const base = makeRunDir(join(dir, 'base'), { seed: 1 }).dir;
    const slow = makeRunDir(join(dir, 'slow'), { seed: 2, slowdown: 1.5 }).dir;
    const result = await runCliInProcess(['compare', base, slow]);
    expect(result.code).toBe(99);
    const { page, consoleErrors, network, dialogs } = await openOffline(
      browser,
      pathToFileURL(join(slow, 'compare.html')).href,
    );
    await chartsReady(page);
    await page.screenshot({ path: join(ARTIFACTS, 'compare.png'), fullPage: true });
    expect(consoleErrors).toEqual([]);
    expect(network).toEqual([]);
    expect(dialogs).toEqual([]);
    const charts = await chartPixels(page);
    // 4 groups x (TTFT, ITL, TPOT, E2E), each with baseline and candidate.
    expect(charts).toHaveLength(16);
    for (const chart of charts) {
      expect(chart.series).toBe(2);
      expect(chart.painted, chart.id).toBeGreaterThan(500);
    }
    const text = await bodyText(page);
    expect(text).toMatch(/\d+ regression\(s\)/);
    expect(text).toContain(`steady/${HOSTILE_MODEL}/flex`);
    expect(await page.locator('main script').count()).toBe(0);
    await page.close();
  });
});
