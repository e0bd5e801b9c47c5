/**
 * `run` with target.server_metrics, on real sockets. Against the emulator (2 slots, 8 users: a queue forms),
 * scraped through a recorder that keeps every body it passed on: timeseries.csv has the server's running
 * and waiting per second, each equal to what the emulator answered the scrape of that second, and
 * summary.json's `server` has the waiting and KV-cache use of the measured window, equal to values the
 * emulator exposed, with the raw names they came from. An endpoint that hangs, answers HTML, answers 50 MB
 * (`too_large`, beside the HTML one) or goes away mid-run changes no client number (the same counts as a
 * run without it, exit 0) and is named in a warning. With `--workers 2` the endpoint sees one scraper.
 * Slow on purpose (runs of seconds, scraped once a second): not in test:fast.
 * @module-tag slow
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/emulator.js';
import type { RunSummary } from '../../src/metrics/run-summary.js';
import type { ServerConceptSummary } from '../../src/metrics/server-summary.js';
import { parseCsvRecords } from '../../src/util/csv-records.js';
import { runCliInProcess } from '../helpers/cli.js';
import { startEngineMetricsServer, type EngineMetricsServer } from '../helpers/engine-metrics-server.js';
import { catalogWithCapacity, type RunTarget, startEmulatorWith } from '../helpers/in-process-emulator.js';
import { type MetricsRecorder, startMetricsRecorder } from '../helpers/metrics-recorder.js';
import { parsePromText, promSum } from '../helpers/prometheus-text.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-server-metrics-');
let emulator: Emulator;
let target: RunTarget;
/** Passes GET /metrics on to the emulator and keeps every body it answered, in order. */
let recorder: MetricsRecorder;

beforeAll(async () => {
  // The model cut to 2 slots: 8 users keep about 6 requests waiting.
  ({ emulator, target } = await startEmulatorWith(catalogWithCapacity({ 'small-fast-8b': { slots: 2, jitter: 0 } })));
  recorder = await startMetricsRecorder(`${emulator.url}/metrics`);
});

afterAll(async () => {
  await recorder.close();
  await emulator.close();
});

const TARGET = `tokenizer: ${JSON.stringify(TINY_TOKENIZER)}`;

function profile(name: string, serverMetrics: string, load: string): string {
  return `name: ${name}
target: { ${TARGET}${serverMetrics === '' ? '' : `, server_metrics: [${serverMetrics}]`} }
scenarios:
  - name: s
    models: [small-fast-8b]
    ${load}
    prompt: { input_tokens: 32, output_tokens: 40 }
    request: { max_completion_tokens: 40 }
    seed: 3
`;
}

function timeseries(dir: string): { columns: string[]; rows: Record<string, string>[] } {
  const parsed = parseCsvRecords(readFileSync(join(dir, 'timeseries.csv'), 'utf8'));
  return { columns: parsed.columns, rows: parsed.records };
}

function gauge(value: ServerConceptSummary | undefined) {
  if (value?.kind !== 'gauge') throw new Error(`expected a gauge, got ${JSON.stringify(value)}`);
  return value;
}

describe('run with target.server_metrics', () => {
  it('timeseries.csv and summary.json show the queue and KV use the emulator exposed', async () => {
    const out = join(folder.dir, 'emulator');
    const path = folder.writeProfile(
      'emulator',
      profile(
        'server-emulator',
        `{ url: ${JSON.stringify(recorder.url)}, metrics: ['vllm:request_success_total'] }`,
        'load: { mode: concurrency, concurrency: 8 }\n    duration: 4s\n    warmup_requests: 2',
      ),
    );
    const result = await runCliInProcess(['run', path, '--out', out, '--quiet'], { target });
    expect(result.stderr).not.toContain('server metrics');
    expect(result.code).toBe(0);
    const summary = readSummary(out);
    const [endpoint] = summary.server_metrics ?? [];
    expect(endpoint).toMatchObject({ url: recorder.url, preset: 'auto', engine: 'vllm', failures: 0 });
    // Every scrape the run made is one body the recorder passed on, in the same order, the last one taken
    // as the run stopped.
    expect(endpoint?.attempts).toBe(recorder.recorded.length);
    expect(endpoint?.scrapes_ok).toBe(recorder.recorded.length);
    const exposed = recorder.recorded.map((text) => {
      const samples = parsePromText(text);
      return {
        running: promSum(samples, 'vllm:num_requests_running'),
        waiting: promSum(samples, 'vllm:num_requests_waiting'),
        kv: Math.max(...samples.filter((s) => s.name === 'vllm:kv_cache_usage_perc').map((s) => s.value)),
        success: promSum(samples, 'vllm:request_success_total'),
      };
    });

    // Scrape k starts in second k of the run (the scraper starts with the run, one scrape a second).
    const { columns, rows } = timeseries(out);
    expect(columns).toEqual(
      expect.arrayContaining(['server_running', 'server_waiting', 'server_kv_cache_usage', 'server_ttft_p50_ms']),
    );
    expect(rows.length).toBeGreaterThanOrEqual(4);
    // A second shows its last scrape: scrape k for second k; the scrape the run takes as it stops (after its
    // last request, the last body passed on) may fall in the last second too, and then that second shows it.
    const lastSecond = Math.max(
      ...rows.filter((row) => row['server_waiting'] !== '').map((row) => Number(row['second'])),
    );
    const scrapesOf = (second: number) =>
      second === lastSecond ? [exposed[second], exposed.at(-1)] : [exposed[second]];
    let compared = 0;
    for (const row of rows) {
      if (row['server_waiting'] === '') continue;
      const second = Number(row['second']);
      const shown = { waiting: Number(row['server_waiting']), running: Number(row['server_running']) };
      expect(
        scrapesOf(second).map((seen) => ({ waiting: seen?.waiting, running: seen?.running })),
        `second ${second}`,
      ).toContainEqual(shown);
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(3);
    expect(Math.max(...rows.map((row) => Number(row['server_waiting'] || 0)))).toBeGreaterThan(0);

    // The measured window: its waiting and KV use are values the emulator exposed, the queue was seen.
    const server = summary.groups[0]?.server;
    const waiting = gauge(server?.measured?.concepts['waiting']);
    expect(waiting.sources).toEqual(['vllm:num_requests_waiting']);
    expect(waiting.max).toBeGreaterThan(0);
    expect(waiting.max).toBeLessThanOrEqual(6);
    const inside = exposed.slice(1, -1);
    expect(exposed.map((e) => e.waiting)).toContain(waiting.max);
    expect(waiting.max).toBeGreaterThanOrEqual(Math.max(...inside.slice(1, -1).map((e) => e.waiting)));
    const kv = gauge(server?.measured?.concepts['kv_cache_usage']);
    expect(kv.sources).toEqual(['vllm:kv_cache_usage_perc']);
    expect(exposed.map((e) => e.kv)).toContain(kv.max);
    expect(kv.max).toBeGreaterThan(0);
    // Its J/token denominator: the measured requests' output tokens.
    const tokens = summary.groups[0]?.metrics.output_tokens;
    expect(server?.measured?.output_tokens).toBe(Math.round((tokens?.mean ?? 0) * (tokens?.count ?? 0)));
    // The warmup had a window of its own.
    expect(server?.warmup?.to_s).toBeLessThanOrEqual(server?.measured?.from_s ?? 0);
    // No power or energy from the emulator: no energy per token.
    expect(server?.measured?.energy_per_output_token_j).toBeNull();
    // The `metrics:` extra, a counter: its increase over the measured window is one between two bodies
    // exposed (the scrape before the window and the last inside it), and each second has its rate.
    const success = server?.measured?.extras?.['vllm:request_success_total'];
    if (success?.kind !== 'counter') throw new Error(`expected a counter, got ${JSON.stringify(success)}`);
    expect(success.sources).toEqual(['vllm:request_success_total']);
    const increases = exposed.flatMap((a, i) => exposed.slice(i + 1).map((b) => b.success - a.success));
    expect(increases).toContain(success.delta);
    expect(success.delta).toBeGreaterThan(0);
    expect(columns).toContain('server_extra_vllm:request_success_total_per_s');
    expect(
      Math.max(...rows.map((row) => Number(row['server_extra_vllm:request_success_total_per_s'] || 0))),
    ).toBeGreaterThan(0);
    // The busiest second of the phase is at least its average.
    expect(success.max_per_s).toBeGreaterThanOrEqual(success.per_s ?? Number.POSITIVE_INFINITY);
    // The readers (report, compare) validate the file whole: the new blocks pass.
    const report = await runCliInProcess(['report', out]);
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
  });

  it('--server-metrics /metrics is a path on the target: scraped from the emulator the run loads', async () => {
    const out = join(folder.dir, 'on-target');
    const path = folder.writeProfile(
      'on-target',
      profile('on-target', '', 'load: { mode: concurrency, concurrency: 2 }\n    requests: 8'),
    );
    const result = await runCliInProcess(['run', path, '--out', out, '--quiet', '--server-metrics', '/metrics'], {
      target,
    });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.server_metrics?.[0]?.url).toBe(`${emulator.url}/metrics`);
    expect(summary.server_metrics?.[0]?.engine).toBe('vllm');
    expect(summary.server_metrics?.[0]?.scrapes_ok).toBeGreaterThan(0);
    expect(timeseries(out).columns).toContain('server_running');
  });
});

/** A run of 24 requests (2 users), with `serverMetrics` (or none): its summary, exit code and stderr. */
async function fixedRun(name: string, serverMetrics: string, during?: () => Promise<void>, flags: string[] = []) {
  const out = join(folder.dir, name);
  const path = folder.writeProfile(
    name,
    profile(name, serverMetrics, 'load: { mode: concurrency, concurrency: 2 }\n    requests: 24'),
  );
  const run = runCliInProcess(['run', path, '--out', out, '--quiet', ...flags], { target });
  await during?.();
  const result = await run;
  return { ...result, summary: readSummary(out), out };
}

const counts = (summary: RunSummary) =>
  summary.groups.map((group) => ({
    ok: group.requests.ok,
    failed: group.requests.failed,
    dropped: group.requests.dropped,
  }));

describe('a broken metrics endpoint changes no client number', () => {
  let engine: EngineMetricsServer;
  /** Answers every scrape with a 50 MB body. */
  let huge: EngineMetricsServer;
  let baseline: RunSummary;
  beforeAll(async () => {
    engine = await startEngineMetricsServer('vllm');
    huge = await startEngineMetricsServer('vllm');
    huge.mode = 'huge';
    baseline = (await fixedRun('baseline', '')).summary;
  });
  afterAll(async () => {
    await engine.close();
    await huge.close();
  });

  const spec = (interval: string) => `{ url: ${JSON.stringify(engine.url)}, interval: ${interval} }`;

  it.each([
    { mode: 'hang', kind: 'timeout', beside50MB: false, interval: '200ms' },
    // Beside it, from --server-metrics (every second): an endpoint whose body is 50 MB. Every scrape must
    // fail as not_prometheus, none time out: the html endpoint shares this process's event loop with the
    // run, its emulator and the 50 MB writer, so a scrape is given 800 ms (a 1 s interval), not 160.
    { mode: 'html', kind: 'not_prometheus', beside50MB: true, interval: '1s' },
  ] as const)(
    'an endpoint that answers $mode: the same counts, exit 0, a warning naming $kind',
    async ({ mode, kind, beside50MB, interval }) => {
      engine.mode = mode;
      const run = await fixedRun(
        `broken-${mode}`,
        spec(interval),
        undefined,
        beside50MB ? ['--server-metrics', huge.url] : [],
      );
      expect(run.code).toBe(0);
      expect(counts(run.summary)).toEqual(counts(baseline));
      expect(counts(run.summary)[0]).toEqual({ ok: 24, failed: 0, dropped: 0 });
      const [endpoint] = run.summary.server_metrics ?? [];
      expect(endpoint?.failures).toBeGreaterThan(0);
      expect(endpoint?.failures_by_kind[kind]).toBe(endpoint?.failures);
      expect(endpoint?.last_error?.kind).toBe(kind);
      const warning = run.summary.harness.warnings.find((w) => w.startsWith('server metrics'));
      expect(warning).toContain(engine.url);
      expect(warning).toContain(kind);
      expect(run.stderr).toContain(`warning: ${warning}`);
      if (beside50MB) {
        // Every scrape of it (at the start, once a second, at the stop) was too_large, read no further than
        // the 8 MiB limit, and warned; the client's counts above are the baseline's all the same.
        const tooLarge = run.summary.server_metrics?.[1];
        expect(tooLarge).toMatchObject({ url: huge.url, preset: 'auto', engine: null, scrapes_ok: 0 });
        expect(tooLarge?.failures).toBeGreaterThanOrEqual(2);
        expect(tooLarge?.failures).toBe(tooLarge?.attempts);
        expect(tooLarge?.failures_by_kind).toEqual({ too_large: tooLarge?.failures });
        expect(tooLarge?.last_error?.kind).toBe('too_large');
        expect(tooLarge?.last_error?.message).toMatch(/^body larger than 8388608 bytes \(read \d+, stopped there\)$/);
        const said = run.summary.harness.warnings.filter(
          (w) => w.startsWith(`server metrics ${huge.url}:`) && w.includes(' scrapes failed ('),
        );
        expect(said).toEqual([
          `server metrics ${huge.url}: ${tooLarge?.failures} of ${tooLarge?.attempts} scrapes failed (${tooLarge?.failures} too_large); last: too_large: ${tooLarge?.last_error?.message}; the client's numbers are unaffected`,
        ]);
        expect(run.stderr).toContain(`warning: ${said[0]}`);
      } else expect(run.summary.server_metrics).toHaveLength(1);
      // compare reads a run without the server's side beside one with it (99 would be a latency verdict
      // between two short runs, 5 a verdict not called because one run's client was busy on this shared
      // machine: neither is a reading problem; a file it cannot read is 2).
      const compared = await runCliInProcess(['compare', join(folder.dir, 'baseline'), run.out]);
      expect([0, 5, 99], compared.stderr).toContain(compared.code);
      if (compared.code === 5)
        expect(
          readSummary(join(folder.dir, 'baseline')).harness.client_bottleneck || run.summary.harness.client_bottleneck,
          `exit 5 with neither run's client busy: ${compared.stdout}`,
        ).toBe(true);
      // The 50 MB were never all sent: the scraper stopped reading past its limit and closed the connection.
      if (beside50MB) expect(huge.hugeBytesWritten()).toBeLessThan(40 * 1024 * 1024);
    },
  );

  it('a password in the endpoint URL is written and printed nowhere', async () => {
    engine.mode = 'hang';
    const secretUrl = engine.url.replace('http://', 'http://scraper:s3cret-pass@');
    const run = await fixedRun('secret-url', `{ url: ${JSON.stringify(secretUrl)}, interval: 200ms }`);
    engine.mode = 'none';
    expect(run.code).toBe(0);
    const written = readFileSync(join(run.out, 'summary.json'), 'utf8');
    expect(written).not.toContain('s3cret-pass');
    expect(run.stderr + run.stdout).not.toContain('s3cret-pass');
    expect(run.summary.server_metrics?.[0]?.url).toBe(engine.url.replace('http://', 'http://scraper:***@'));
    expect(run.stderr).toContain('warning: server metrics http://scraper:***@');
  });

  it('an endpoint that goes away mid-run: the same counts, exit 0, connect failures named', async () => {
    engine.mode = 'none';
    const before = engine.authorizations.length;
    const run = await fixedRun('broken-down', spec('200ms'), async () => {
      while (engine.authorizations.length < before + 2) await new Promise((r) => setTimeout(r, 20));
      await engine.down();
    });
    await engine.up();
    expect(run.code).toBe(0);
    expect(counts(run.summary)).toEqual(counts(baseline));
    const [endpoint] = run.summary.server_metrics ?? [];
    expect(endpoint?.scrapes_ok).toBeGreaterThanOrEqual(2);
    expect(endpoint?.failures_by_kind['connect']).toBeGreaterThan(0);
    expect(run.stderr).toMatch(
      /warning: server metrics http:\/\/127\.0\.0\.1:\d+\/metrics: \d+ of \d+ scrapes failed \(\d+ connect/,
    );
  });

  it('--workers 2: one scraper, in the main thread (the endpoint sees only its GETs)', async () => {
    engine.mode = 'none';
    const before = engine.authorizations.length;
    const out = join(folder.dir, 'workers');
    const path = folder.writeProfile(
      'workers',
      profile('workers', spec('200ms'), 'load: { mode: concurrency, concurrency: 2 }\n    requests: 24'),
    );
    const run = await runCliInProcess(['run', path, '--out', out, '--quiet', '--workers', '2'], { target });
    expect(run.code).toBe(0);
    const summary = readSummary(out);
    expect(summary.workers).toBe(2);
    expect(counts(summary)).toEqual(counts(baseline));
    const [endpoint] = summary.server_metrics ?? [];
    expect(summary.server_metrics).toHaveLength(1);
    // Every GET the endpoint saw was one of the main thread's scraper: none came from a worker.
    const seen = engine.authorizations.length - before;
    expect(endpoint?.attempts).toBe(seen);
    expect(endpoint?.scrapes_ok).toBeGreaterThanOrEqual(2);
    // One scraper's rate: at most one GET per 200 ms of the run, plus the one at its start.
    const runMs = Date.parse(summary.ended_at) - Date.parse(summary.started_at);
    expect(seen).toBeLessThanOrEqual(Math.ceil(runMs / 200) + 1);
    expect(summary.groups[0]?.server?.measured?.concepts['waiting']?.kind).toBe('gauge');
  });

  it('auto that recognises no engine is a warning', async () => {
    // Valid text format, but no engine's names (a node exporter, say).
    const other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end('# TYPE node_load1 gauge\nnode_load1 0.5\n');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}/metrics`;
    try {
      const run = await fixedRun('unrecognised', `{ url: ${JSON.stringify(url)}, interval: 200ms }`);
      expect(run.code).toBe(0);
      expect(counts(run.summary)).toEqual(counts(baseline));
      expect(run.summary.server_metrics?.[0]).toMatchObject({ engine: null, failures: 0 });
      expect(run.stderr).toContain(`warning: server metrics ${url}: preset auto recognised no engine`);
      // Nothing to show: no server columns, no concepts.
      expect(timeseries(run.out).columns.some((c) => c.startsWith('server_'))).toBe(false);
      expect(run.summary.groups[0]?.server?.measured?.concepts).toEqual({});
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });
});
