/**
 * report.html of a real run with target.server_metrics, in headless Chromium: against the emulator cut to
 * 2 slots (6 users: a queue forms), scraped through a recorder that keeps every /metrics body it passed on,
 * the Server section draws the client's TTFT and the server's running, waiting and KV-cache use on one
 * time axis; every value uPlot drew equals the run's timeseries.csv, and the server's equal what the
 * emulator exposed in that second. The charts share the cursor and the x zoom. Screenshots go to
 * test-artifacts/ (gitignored).
 * @module-tag browser
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/emulator.js';
import { fmt } from '../../src/report/html/document-model.js';
import { parseCsvRecords } from '../../src/util/csv-records.js';
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
import { catalogWithCapacity, type RunTarget, startEmulatorWith } from '../helpers/in-process-emulator.js';
import { type MetricsRecorder, startMetricsRecorder } from '../helpers/metrics-recorder.js';
import { parsePromText, promSum } from '../helpers/prometheus-text.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

if (!hasChromium) console.warn(`SKIPPED server report browser tests: ${CHROMIUM} is absent (.ci/run installs it)`);

const folder = useRunFolder('inferbench-server-report-');

/** What uPlot holds for one chart: its series' labels and its data arrays (x first). */
interface DrawnChart {
  readonly labels: string[];
  readonly data: (number | null)[][];
  readonly cursorIdx: number | null;
  readonly xRange: [number, number];
}

/** The charts the page drew, by id, read from uPlot itself. */
function drawnCharts(page: Page): Promise<Record<string, DrawnChart>> {
  return page.evaluate(() => {
    interface Plot {
      series: { label: string }[];
      data: (number | null | undefined)[][];
      cursor: { idx?: number | null };
      scales: { x: { min: number; max: number } };
    }
    const w = globalThis as unknown as { inferbenchCharts: { id: string; chart: Plot }[] };
    const out: Record<string, DrawnChart> = {};
    for (const c of w.inferbenchCharts) {
      out[c.id] = {
        labels: c.chart.series.map((s) => s.label),
        data: c.chart.data.map((values) => values.map((v) => (v === undefined ? null : v))),
        cursorIdx: c.chart.cursor.idx ?? null,
        xRange: [c.chart.scales.x.min, c.chart.scales.x.max],
      };
    }
    return out;
  });
}

/** The values of the series labelled `label` of a drawn chart. */
function line(chart: DrawnChart | undefined, label: string): (number | null)[] {
  const index = chart?.labels.indexOf(label) ?? -1;
  if (chart === undefined || index < 1) throw new Error(`no series ${label} in ${JSON.stringify(chart?.labels)}`);
  return chart.data[index] as (number | null)[];
}

/** A CSV cell as the chart would hold it: empty is a gap. */
const csvNumber = (cell: string | undefined): number | null =>
  cell === undefined || cell === '' ? null : Number(cell);
/** timeseries.csv keeps 3 decimals. */
const round3 = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

describe.skipIf(!hasChromium)('report.html of a run with server metrics, in headless Chromium', () => {
  let emulator: Emulator;
  let target: RunTarget;
  /** Passes GET /metrics on to the emulator and keeps every body it answered, in order. */
  let recorder: MetricsRecorder;
  let browser: Browser;

  beforeAll(async () => {
    // small-fast-8b cut to 2 slots: 6 users keep about 4 requests waiting.
    ({ emulator, target } = await startEmulatorWith(catalogWithCapacity({ 'small-fast-8b': { slots: 2, jitter: 0 } })));
    recorder = await startMetricsRecorder(`${emulator.url}/metrics`);
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await recorder.close();
    await emulator.close();
  });

  it("draws the client's TTFT beside the server's queue and KV-cache use, equal to timeseries.csv and the emulator", async () => {
    const out = join(folder.dir, 'run');
    const path = folder.writeProfile(
      'server',
      `name: server-report
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)}, server_metrics: [{ url: ${JSON.stringify(recorder.url)} }] }
scenarios:
  - name: s
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 6 }
    duration: 3s
    prompt: { input_tokens: 32, output_tokens: 40 }
    request: { max_completion_tokens: 40 }
    seed: 3
`,
    );
    const result = await runCliInProcess(['run', path, '--out', out, '--quiet'], { target });
    expect(result.code, result.stderr).toBe(0);
    const summary = readSummary(out);
    const [endpoint] = summary.server_metrics ?? [];
    // Scrape k started in second k of the run (one a second from the run's start, none skipped or failed).
    expect(endpoint).toMatchObject({ url: recorder.url, engine: 'vllm', failures: 0, skipped: 0 });
    const exposed = recorder.recorded.map((text) => {
      const samples = parsePromText(text);
      return {
        running: promSum(samples, 'vllm:num_requests_running'),
        waiting: promSum(samples, 'vllm:num_requests_waiting'),
        kv: Math.max(...samples.filter((s) => s.name === 'vllm:kv_cache_usage_perc').map((s) => s.value)),
      };
    });
    const rows = parseCsvRecords(readFileSync(join(out, 'timeseries.csv'), 'utf8')).records;

    const { page, consoleErrors, network } = await openOffline(browser, pathToFileURL(join(out, 'report.html')).href);
    await chartsReady(page);
    await page.locator('#server').screenshot({ path: join(ARTIFACTS, 'report-server.png') });
    expect(consoleErrors).toEqual([]);
    expect(network).toEqual([]);

    const painted = (await chartPixels(page)).filter((c) => c.id.startsWith('srv-'));
    expect(painted.map((c) => c.id)).toEqual(['srv-ttft', 'srv-queue', 'srv-kv', 'srv-tokens']);
    for (const chart of painted) expect(chart.painted, `${chart.id} has painted pixels`).toBeGreaterThan(500);

    const charts = await drawnCharts(page);
    const seconds = rows.map((row) => Number(row['second']));
    // One time axis: every server chart has the run's seconds, those of timeseries.csv.
    for (const id of ['srv-ttft', 'srv-queue', 'srv-kv', 'srv-tokens'])
      expect(charts[id]?.data[0], id).toEqual(seconds);
    const group = summary.groups[0]?.key;
    const ttft = charts['srv-ttft'];
    expect(line(ttft, `${group} p50`).map(round3)).toEqual(rows.map((r) => csvNumber(r['ttft_p50_ms'])));
    expect(line(ttft, `${group} p99`).map(round3)).toEqual(rows.map((r) => csvNumber(r['ttft_p99_ms'])));
    expect(line(ttft, 'server p50').map(round3)).toEqual(rows.map((r) => csvNumber(r['server_ttft_p50_ms'])));

    const running = line(charts['srv-queue'], 'running');
    const waiting = line(charts['srv-queue'], 'waiting');
    const kv = line(charts['srv-kv'], 'KV cache');
    expect(running).toEqual(rows.map((r) => csvNumber(r['server_running'])));
    expect(waiting).toEqual(rows.map((r) => csvNumber(r['server_waiting'])));
    expect(kv.map((v) => round3(v === null ? null : v / 100))).toEqual(
      rows.map((r) => csvNumber(r['server_kv_cache_usage'])),
    );
    // ... and those are what the emulator answered the scrape of that second.
    // Scrape k for second k; the scrape the run takes as it stops (the last body passed on) may fall in the
    // last second too, and then that second shows it.
    const lastSecond = Math.max(...seconds.filter((_, i) => running[i] !== null));
    let compared = 0;
    seconds.forEach((second, i) => {
      if (running[i] === null) return;
      const candidates = second === lastSecond ? [exposed[second], exposed.at(-1)] : [exposed[second]];
      expect(
        candidates.map((seen) => ({
          running: seen?.running,
          waiting: seen?.waiting,
          kv: (seen?.kv ?? Number.NaN) * 100,
        })),
        `second ${second}`,
      ).toContainEqual({ running: running[i], waiting: waiting[i], kv: kv[i] });
      compared++;
    });
    expect(compared).toBeGreaterThanOrEqual(2);
    // The queue formed and the page shows it.
    expect(Math.max(...waiting.map((v) => v ?? 0))).toBeGreaterThan(0);

    // The measured window's table and the endpoint's health, as summary.json has them.
    const measured = summary.groups[0]?.server?.measured;
    const waitingSummary = measured?.concepts['waiting'];
    expect(waitingSummary?.kind).toBe('gauge');
    const text = await bodyText(page);
    expect(text).toContain('vllm:num_requests_waiting');
    expect(text).toContain('vllm:kv_cache_usage_perc');
    expect(text).toContain(`${fmt(measured?.from_s, 3)} s to ${fmt(measured?.to_s, 3)} s of the run`);
    const waitingRow = page.locator('#server table.data tr', { hasText: 'waiting (requests)' }).first();
    const cells = await waitingRow.locator('td').allTextContents();
    if (waitingSummary?.kind === 'gauge')
      expect(cells.slice(0, 5)).toEqual([
        'waiting (requests)',
        'gauge',
        'vllm:num_requests_waiting',
        fmt(waitingSummary.mean),
        fmt(waitingSummary.max),
      ]);
    const endpointRow = await page
      .locator('#server table.data tr', { hasText: recorder.url })
      .locator('td')
      .allTextContents();
    expect(endpointRow).toEqual([
      recorder.url,
      'auto',
      'vllm',
      '–',
      '1000',
      String(endpoint?.attempts),
      String(endpoint?.scrapes_ok),
      '0',
      '0',
    ]);

    // One cursor: hovering the queue chart puts every server chart's cursor on the same second.
    const over = page.locator('[data-chart-id="srv-queue"] .u-over');
    await over.scrollIntoViewIfNeeded();
    const box = await over.boundingBox();
    if (box === null) throw new Error('the queue chart has no plot area');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const hovered = await drawnCharts(page);
    const idx = hovered['srv-queue']?.cursorIdx;
    expect(idx).not.toBeNull();
    for (const id of ['srv-ttft', 'srv-kv', 'srv-tokens']) expect(hovered[id]?.cursorIdx, id).toBe(idx);
    // One zoom: a drag over the queue chart's x zooms every server chart to the same seconds.
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    const zoomed = await drawnCharts(page);
    const range = zoomed['srv-queue']?.xRange ?? [0, 0];
    expect(range[1] - range[0]).toBeGreaterThan(0);
    expect(range[1] - range[0]).toBeLessThan((seconds.at(-1) ?? 0) - (seconds[0] ?? 0));
    for (const id of ['srv-ttft', 'srv-kv', 'srv-tokens']) expect(zoomed[id]?.xRange, id).toEqual(range);
    // The client's own charts keep their axis.
    expect(zoomed['ts-ttft']?.xRange).toEqual(charts['ts-ttft']?.xRange);
    await page.close();
  });
});
