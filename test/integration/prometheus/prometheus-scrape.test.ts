/**
 * A real Prometheus (Debian's /usr/bin/prometheus) scrapes `inferbench run --metrics-port` once a second
 * during a short open-loop run against an emulator in this process; PromQL over what it stored then gives the
 * run's summary.json: the ok count, the ITL gap count, and a TTFT median in the bucket of the run's p50;
 * and every query of the shipped Grafana dashboard runs and finds data (its server panels too: the run scrapes
 * the emulator's /metrics, a DCGM-like endpoint and one with a vLLM ITL histogram, whose counts grow).
 * Skipped on a machine without the binary; in CI (CI=true, .ci/run installs it) a missing one fails.
 * @module-tag tool
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS_S } from '../../../src/aggregate/prometheus/live-buckets.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { type EngineMetricsServer, startEngineMetricsServer } from '../../helpers/engine-metrics-server.js';
import { freePort } from '../../helpers/free-port.js';
import { type RunTarget, useInProcessEmulators } from '../../helpers/in-process-emulator.js';
import { readSummary } from '../../helpers/run-folder.js';

const PROMETHEUS = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'prometheus'))
  .find((path) => existsSync(path));
const IN_CI = process.env.CI === 'true';
if (PROMETHEUS === undefined && !IN_CI)
  console.warn(
    "SKIPPED Prometheus integration test: no prometheus binary on PATH (.ci/run installs Debian's prometheus)",
  );

const emulators = useInProcessEmulators();
const DASHBOARD = resolve(import.meta.dirname, '../../../profiles/grafana/inferbench-dashboard.json');

const PROFILE = `
name: prometheus-scrape
scenarios:
  - name: steady
    models: [large-70b]  # its emulated rate limits send x-ratelimit-remaining-* (the headroom panel)
    load: { mode: rate, rate: 28, arrival: constant }
    duration: 5s
    request: { max_completion_tokens: 24 }
    prompt: { input_tokens: 64 }
`;

/** A vLLM ITL histogram (no other endpoint here has one) with 2 more observations every 100 ms. */
function startItlEndpoint(): Promise<Server> {
  const startedMs = Date.now();
  const server = createServer((_req, res) => {
    const n = 2 * Math.floor((Date.now() - startedMs) / 100);
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(
      [
        '# TYPE vllm:inter_token_latency_seconds histogram',
        `vllm:inter_token_latency_seconds_bucket{le="0.01"} ${n / 2}`,
        `vllm:inter_token_latency_seconds_bucket{le="0.05"} ${n}`,
        `vllm:inter_token_latency_seconds_bucket{le="+Inf"} ${n}`,
        `vllm:inter_token_latency_seconds_sum ${0.02 * n}`,
        `vllm:inter_token_latency_seconds_count ${n}`,
        '',
      ].join('\n'),
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(PROMETHEUS === undefined && !IN_CI)('a real Prometheus scraping inferbench run', () => {
  let dir = '';
  let prometheus: ChildProcess | undefined;
  let promUrl = '';
  let metricsPort = 0;
  let promLog = '';
  let target: RunTarget;
  let dcgm: EngineMetricsServer | undefined;
  let dcgmSteps: NodeJS.Timeout | undefined;
  let itl: Server | undefined;
  /** The DCGM-like endpoint's and the ITL endpoint's URLs. */
  let extraEndpoints: string[] = [];
  /** When the run (and its /metrics) ended, epoch seconds: instant queries read the last scrape there. */
  let runEndedS = 0;

  beforeAll(async () => {
    if (PROMETHEUS === undefined)
      throw new Error("no prometheus binary on PATH: install Debian's prometheus (.ci/run does)");
    dir = mkdtempSync(join(tmpdir(), 'inferbench-prometheus-'));
    metricsPort = await freePort();
    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global: { scrape_interval: 1s, scrape_timeout: 1s }
scrape_configs:
  - job_name: inferbench
    static_configs: [{ targets: ['127.0.0.1:${metricsPort}'] }]
`,
    );
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    prometheus.stderr?.on('data', (chunk: Buffer) => {
      promLog += chunk.toString('utf8');
    });
    // The emulator loads its tokenizer while Prometheus starts.
    [, target, dcgm, itl] = await Promise.all([
      waitReady(promUrl, () => promLog),
      emulators.start(),
      startEngineMetricsServer('dcgm'),
      startItlEndpoint(),
    ]);
    extraEndpoints = [dcgm.url, `http://127.0.0.1:${(itl.address() as AddressInfo).port}/metrics`];
    // The GPUs' energy counter grows (the energy-rate series).
    const gpus = dcgm;
    dcgmSteps = setInterval(() => {
      gpus.step++;
    }, 250);
  }, 40_000);

  afterAll(async () => {
    clearInterval(dcgmSteps);
    await dcgm?.close();
    if (itl !== undefined) {
      const server = itl;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await stop(prometheus);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 15_000);

  it('stores what summary.json says: ok count, ITL gaps, TTFT median in its bucket', async () => {
    const out = join(dir, 'run');
    const result = await runCliInProcess(
      [
        'run',
        join(
          dir,
          // The target's own metrics: the emulator's (a path on the run's target), GPUs, an ITL histogram.
          writeProfile(dir, ['/metrics', ...extraEndpoints]),
        ),
        '--out',
        out,
        '--metrics-port',
        String(metricsPort),
        '--quiet',
      ],
      { cwd: dir, target },
    );
    runEndedS = Date.now() / 1000;
    expect(result.code, result.stderr).toBe(0);
    // The run waited for a scrape after its end (well within the default 15 s).
    expect(result.stderr).not.toMatch(/not scraped within/);
    const group = readSummary(out).groups[0];
    const ok = group?.requests.ok as number;
    expect(ok).toBeGreaterThan(100);
    // last_over_time: once the run's /metrics closed, Prometheus marked the series stale.
    expect(await query(promUrl, 'max(last_over_time(inferbench_run_ended[1m]))')).toBe(1);
    expect(await query(promUrl, 'sum(last_over_time(inferbench_requests_total{outcome="ok"}[1m]))')).toBe(ok);
    expect(await query(promUrl, 'sum(last_over_time(inferbench_ttft_seconds_count[1m]))')).toBe(ok);
    expect(await query(promUrl, 'sum(last_over_time(inferbench_itl_seconds_count[1m]))')).toBe(
      group?.metrics.itl_ms?.count,
    );
    const median = await query(
      promUrl,
      'histogram_quantile(0.5, sum by (le) (last_over_time(inferbench_ttft_seconds_bucket[1m])))',
    );
    const p50S = (group?.metrics.ttft_ms?.p50 as number) / 1000;
    // The bucket holding the run's p50 (HDR's 3 significant digits either side of a bound allowed).
    const lower = [0, ...LATENCY_BUCKETS_S].filter((bound) => bound < p50S * 1.001).at(-1) as number;
    const upper = LATENCY_BUCKETS_S.find((bound) => bound >= p50S * 0.999) as number;
    expect(median).toBeGreaterThanOrEqual(lower);
    expect(median).toBeLessThanOrEqual(upper);
    // The server's families were passed on, from every endpoint scraped.
    expect(await query(promUrl, 'count(last_over_time(inferbench_server_scrapes_total{outcome="ok"}[1m]) > 0)')).toBe(
      3,
    );
  }, 30_000);

  it('answers every query of the Grafana dashboard with data', async () => {
    expect(runEndedS).toBeGreaterThan(0);
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels: { title: string; targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
    expect(exprs.length).toBeGreaterThan(15);
    for (const expr of exprs) {
      const promql = expr.replaceAll('$group', '.*').replaceAll('$__rate_interval', '1m');
      const results = await queryAt(promUrl, promql, runEndedS);
      // "> 0" keeps only error classes that occurred: none in this run.
      if (!expr.endsWith('> 0')) expect(results.length, promql).toBeGreaterThan(0);
    }
  }, 30_000);
});

function writeProfile(dir: string, serverMetrics: readonly string[]): string {
  const urls = serverMetrics.map((url) => `{ url: ${JSON.stringify(url)} }`).join(', ');
  writeFileSync(join(dir, 'profile.yaml'), `target: { server_metrics: [${urls}] }\n${PROFILE}`);
  return 'profile.yaml';
}

/** Prometheus answers /-/ready once its storage and web server are up. */
async function waitReady(url: string, log: () => string): Promise<void> {
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`prometheus did not become ready within 15 s:\n${log()}`);
}

/** One instant PromQL query whose answer is a single number. */
async function query(url: string, promql: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { status: string; data: { result: { value: [number, string] }[] } };
  expect(body.status, promql).toBe('success');
  expect(body.data.result, promql).toHaveLength(1);
  return Number(body.data.result[0]?.value[1]);
}

/** An instant PromQL query at `timeS` (epoch seconds): its result vector, after checking it ran. */
async function queryAt(url: string, promql: string, timeS: number): Promise<unknown[]> {
  const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}&time=${timeS}`);
  const body = (await response.json()) as { status: string; error?: string; data: { result: unknown[] } };
  expect(body.status, `${promql}: ${body.error ?? ''}`).toBe('success');
  return body.data.result;
}

/** SIGTERM, then SIGKILL if it has not exited within 5 s: no Prometheus outlives the test. */
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
