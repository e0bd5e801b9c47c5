/**
 * `inferbench run --dashboard 0` in real headless Chromium: the CLI runs in-process against the embedded
 * emulator, the test reads the dashboard's URL from stderr, opens the page while the run goes and checks
 * that it loads clean (no console error, no failed request, nothing fetched beyond its own origin), that
 * its charts and counters grow, that a page opened late gets the history so far, and that when the run ends
 * (the test interrupts it, as Ctrl-C does, so the end never comes before the late page) it shows the final summary with summary.json's numbers, says "ended" and closes its event stream for good (an
 * EventSource closed by the page never reconnects: waited for as page state, not slept on). And a port that
 * is taken: exit 2 with a clear message, before anything is sent to the target (a purpose-built server that
 * records every request, no emulator to start). One Chromium for the file. Screenshots go to test-artifacts/.
 * The run scrapes the emulator's own /metrics (`--server-metrics /metrics`): the server's chart stands beside
 * the TTFT chart, and its lines and tiles show what the page was sent.
 * @module-tag browser
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/run-cli.js';
import type { RunSummary } from '../../src/metrics/run-summary.js';
import { MemoryStream, runCliInProcess } from '../helpers/cli.js';
import {
  RECORDING_MODEL,
  type RecordingChatServer,
  startRecordingChatServer,
} from '../helpers/recording-chat-server.js';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = resolve(import.meta.dirname, '..', '..');
const ARTIFACTS = join(ROOT, 'test-artifacts');
/** Skipped on a developer machine without Chromium; in CI (CI=true, .ci/run installs it) a missing browser fails. */
const hasChromium = existsSync(CHROMIUM) || process.env['CI'] === 'true';

function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
}

/** What the page script exposes (live-page-script.ts), typed here: the tsconfig has no DOM library. */
interface LiveHook {
  state: string | null;
  ticks: number;
  points: number;
  charts: { id: string }[];
  end: { summary: unknown } | null;
  lost: boolean;
}

interface WatchedPage {
  readonly page: Page;
  readonly consoleErrors: string[];
  readonly failed: string[];
  readonly requests: string[];
  /** The page's Content-Security-Policy header. */
  readonly csp: string | undefined;
}

/**
 * Keeps every EventSource the page makes in `inferbenchTestSources`, so the test reads their readyState
 * (2: closed by the page, never to reconnect). Added by the test before the page's own script runs.
 */
function keepEventSources(): void {
  const Native = (globalThis as unknown as { EventSource: new (url: string) => object }).EventSource;
  const sources: object[] = [];
  (globalThis as unknown as { inferbenchTestSources: object[] }).inferbenchTestSources = sources;
  (globalThis as unknown as { EventSource: unknown }).EventSource = class extends Native {
    constructor(url: string) {
      super(url);
      sources.push(this);
    }
  };
}

/** readyState of each EventSource the page made, in order. */
function sourceStates(page: Page): Promise<number[]> {
  return page.evaluate(() =>
    (globalThis as unknown as { inferbenchTestSources: { readyState: number }[] }).inferbenchTestSources.map(
      (source) => source.readyState,
    ),
  );
}

async function openWatched(browser: Browser, url: string): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.addInitScript(keepEventSources);
  const watched = { page, consoleErrors: [] as string[], failed: [] as string[], requests: [] as string[] };
  page.on('console', (m) => {
    if (m.type() === 'error') watched.consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => watched.consoleErrors.push(String(e)));
  page.on('requestfailed', (r) => watched.failed.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('request', (r) => watched.requests.push(r.url()));
  const response = await page.goto(url, { waitUntil: 'load' });
  return { ...watched, csp: response?.headers()['content-security-policy'] };
}

function hook(page: Page): Promise<LiveHook> {
  return page.evaluate(() => {
    const live = (globalThis as unknown as { inferbenchLive: LiveHook }).inferbenchLive;
    return { ...live, charts: live.charts.map((c) => ({ id: c.id })) };
  });
}

/** The text of the tile `name` of the "Now" counters. */
async function tile(page: Page, name: string): Promise<number> {
  const text = await page.locator(`[data-tile="${name}"] .tile-value`).textContent();
  return Number((text ?? '').replaceAll(',', ''));
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function cliContext(): { ctx: CliContext; stderr: MemoryStream; interrupt: AbortController } {
  const stderr = new MemoryStream();
  const interrupt = new AbortController();
  const ctx: CliContext = {
    stdout: new MemoryStream(),
    stderr,
    env: { PATH: process.env.PATH },
    cwd: ROOT,
    interrupt: interrupt.signal,
    exitCode: 0,
  };
  return { ctx, stderr, interrupt };
}

describe.skipIf(!hasChromium)('the live dashboard in headless Chromium', () => {
  let browser: Browser;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inferbench-dashboard-'));
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the run as it goes, the history to a late page, and the final summary of summary.json', async () => {
    const out = join(dir, 'run');
    const { ctx, stderr, interrupt } = cliContext();
    // Long enough that the late page surely opens while the run goes (an 8-second run ended first on a
    // loaded CI machine); the test ends it as Ctrl-C does, once the late page has its history.
    const run = runCli(
      [
        'run',
        'profiles/quickstart.yaml',
        '--dashboard',
        '0',
        '--out',
        out,
        '--set',
        'scenarios[0].duration=60s',
        '--set',
        'scenarios[0].warmup=1s',
        '--server-metrics',
        '/metrics',
      ],
      ctx,
    );
    const url = await waitFor(
      'the dashboard line',
      () => /inferbench: dashboard: (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(stderr.text)?.[1],
    );
    const first = await openWatched(browser, url);
    // Inline code and its own origin's event stream only.
    expect(first.csp).toMatch(/^default-src 'none';.*connect-src 'self'/);
    await waitFor('two points', async () => (await hook(first.page)).points >= 2 || undefined);
    expect(await first.page.title()).toBe('inferbench live: quickstart');
    expect(await first.page.locator('#live-target').textContent()).toBe('against the embedded emulator');
    const before = { hook: await hook(first.page), completed: await tile(first.page, 'completed') };
    expect(before.hook.charts.map((c) => c.id)).toEqual([
      'live-rps',
      'live-otps',
      'live-ttft',
      'live-server',
      'live-inflight',
      'live-errors',
    ]);
    // The server's chart is beside the TTFT chart, on its right.
    const box = (id: string) => first.page.locator(`[data-chart-id="${id}"]`).boundingBox();
    const [ttftBox, serverBox] = [await box('live-ttft'), await box('live-server')];
    expect(serverBox?.y).toBe(ttftBox?.y);
    expect(serverBox?.x).toBeGreaterThan((ttftBox?.x ?? 0) + (ttftBox?.width ?? 0) - 1);
    // Two more ticks (one a second; waited for rather than slept, for a loaded machine).
    await waitFor(
      'two more points',
      async () => (await hook(first.page)).points >= before.hook.points + 2 || undefined,
    );
    const after = { hook: await hook(first.page), completed: await tile(first.page, 'completed') };
    // The run goes on: points are added and requests end.
    expect(after.hook.state).toBe('running');
    expect(after.hook.points).toBeGreaterThanOrEqual(before.hook.points + 2);
    expect(after.completed).toBeGreaterThan(before.completed);
    await first.page.screenshot({ path: join(ARTIFACTS, 'dashboard-running.png'), fullPage: true });

    // A page opened now gets the points so far at once, from the stream's first event.
    const late = await openWatched(browser, url);
    await waitFor('the late page state', async () => (await hook(late.page)).state !== 'starting' || undefined);
    expect((await hook(late.page)).points).toBeGreaterThanOrEqual(after.hook.points);

    // Ctrl-C: the results so far are written and both pages get the final summary all the same.
    interrupt.abort();
    expect(await run, stderr.text).toBe(130);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.complete).toBe(false);
    for (const watched of [first, late]) {
      const { page } = watched;
      await waitFor('the end', async () => (await hook(page)).end !== null || undefined);
      expect(await page.locator('#live-state').textContent()).toBe('ended');
      expect(await page.locator('#live-notice').textContent()).toContain('The run has ended');
      const rows = page.locator('#live-final-groups tbody tr');
      expect(await rows.count()).toBe(summary.groups.length);
      for (const [i, group] of summary.groups.entries()) {
        const row = rows.nth(i);
        expect(await row.locator('[data-field="key"]').textContent()).toBe(group.key);
        expect(await row.locator('[data-field="ok"]').textContent()).toBe(group.requests.ok.toLocaleString('en-US'));
        expect(await row.locator('[data-field="failed"]').textContent()).toBe(String(group.requests.failed));
        expect(group.requests.ok).toBeGreaterThan(0);
      }
      // The groups so far count the last requests too: the same ok counts as the summary.
      expect(await page.locator('#live-groups [data-field="ok"]').allTextContents()).toEqual(
        summary.groups.map((g) => g.requests.ok.toLocaleString('en-US')),
      );
      expect(await page.locator('#live-final-thresholds [data-field="threshold"]').allTextContents()).toEqual(
        summary.thresholds.map((t) => (t.passed ? 'pass' : 'FAIL')),
      );
    }
    await first.page.screenshot({ path: join(ARTIFACTS, 'dashboard-ended.png'), fullPage: true });
    // The server's lines: running, waiting and KV cache in %, one value per point; the tiles show the last.
    const drawn = await first.page.evaluate(() => {
      const live = (globalThis as unknown as { inferbenchLive: { charts: { id: string; chart: { data: unknown } }[] } })
        .inferbenchLive;
      return live.charts.find((c) => c.id === 'live-server')?.chart.data as (number | null)[][];
    });
    expect(drawn).toHaveLength(4);
    const [times, runningLine, waitingLine, kvLine] = drawn as [
      number[],
      (number | null)[],
      (number | null)[],
      (number | null)[],
    ];
    for (const line of [runningLine, waitingLine, kvLine]) expect(line).toHaveLength(times.length);
    const lastAt = runningLine.findLastIndex((v) => v !== null);
    // The emulator answered its /metrics every second: most points have the server, and it ran requests.
    expect(runningLine.filter((v) => v !== null).length).toBeGreaterThan(times.length / 2);
    expect(Math.max(...runningLine.map((v) => v ?? 0))).toBeGreaterThan(0);
    expect(kvLine.every((v) => v === null || (v >= 0 && v <= 100))).toBe(true);
    expect(await tile(first.page, 'server-running')).toBe(runningLine[lastAt]);
    expect(await tile(first.page, 'server-waiting')).toBe(waitingLine[lastAt]);
    const kvTile = await first.page.locator('[data-tile="server-kv"] .tile-value').textContent();
    expect(kvTile).toBe(`${(kvLine[lastAt] as number).toFixed(2)}%`);
    // EventSource reconnects by itself when a stream ends (readyState 0, connecting) unless the page closes
    // it (2). Closed, it never reconnects: so the end is the page's one stream, closed, not a wait.
    for (const watched of [first, late]) {
      // The page closes it on the stream's end, at once; the 10-second fallback close is not what passes here.
      const states = await waitFor(
        'the page to close its event stream',
        async () => {
          const seen = await sourceStates(watched.page);
          return seen.length > 0 && seen.every((state) => state === 2) ? seen : undefined;
        },
        5_000,
      );
      expect(states).toEqual([2]);
      expect(watched.consoleErrors).toEqual([]);
      expect(watched.failed).toEqual([]);
      expect(watched.requests.filter((r) => !r.startsWith(url))).toEqual([]);
      expect(watched.requests.filter((r) => r.endsWith('/events'))).toHaveLength(1);
      expect((await hook(watched.page)).lost).toBe(false);
      await watched.page.close();
    }
  }, 40_000);
});

describe('--dashboard on a port that is taken', () => {
  let holder: Server;
  let target: RecordingChatServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inferbench-dashboard-port-'));
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    target = await startRecordingChatServer();
  });
  afterAll(async () => {
    await new Promise((resolve) => holder.close(resolve));
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 2 with the port and a hint, before any request is sent', async () => {
    const port = (holder.address() as { port: number }).port;
    const out = join(dir, 'run');
    const result = await runCliInProcess(
      [
        'run',
        'profiles/quickstart.yaml',
        '--dashboard',
        String(port),
        '--out',
        out,
        '--base-url',
        target.url,
        '--set',
        `scenarios[0].models=[${RECORDING_MODEL}]`,
      ],
      { cwd: ROOT },
    );
    expect(result.code, result.stderr).toBe(2);
    expect(target.chats).toEqual([]);
    expect(result.stderr).toContain(`--dashboard: port ${port} on 127.0.0.1 is already in use`);
    expect(result.stderr).toContain('--dashboard 0');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  }, 30_000);
});
