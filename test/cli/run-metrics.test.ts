/**
 * `inferbench run --metrics-port` in-process against an emulator in this process, over real sockets: /metrics
 * scraped while the run goes and after it, its final values equal to summary.json's, the wait for a last
 * scrape after the run (and its limit), the profile's `live:` block, and a taken port refused (exit 2)
 * before any request is sent.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import type { CliContext } from '../../src/cli/context.js';
import { MemoryStream, runCliInProcess, withTarget } from '../helpers/cli.js';
import { type RunTarget, useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { parsePromText, promSamples, promSum, type PromSample } from '../helpers/prometheus-text.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-run-metrics-');
const emulators = useInProcessEmulators();

const OPEN_LOOP = `
name: live-metrics
scenarios:
  - name: steady
    models: [small-fast-8b, large-70b]
    load: { mode: rate, rate: 15, arrival: constant }
    duration: 2s
    warmup_requests: 2
    request: { max_completion_tokens: 24 }
    prompt: { input_tokens: 64 }
`;

/** Runs the CLI in-process and scrapes /metrics every 150 ms from when its URL is printed until it closes. */
async function runScraping(args: string[], target: RunTarget) {
  const { argv, env } = withTarget(args, { PATH: process.env.PATH }, target);
  const stderr = new MemoryStream();
  const ctx: CliContext = {
    stdout: new MemoryStream(),
    stderr,
    env,
    cwd: folder.dir,
    interrupt: new AbortController().signal,
    exitCode: 0,
  };
  let done = false;
  const run = runCli(argv, ctx).finally(() => {
    done = true;
  });
  const scrapes: { readonly samples: PromSample[]; readonly type: string }[] = [];
  let url: string | undefined;
  while (!done) {
    url ??= /metrics: (http:\/\/\S+\/metrics)/.exec(stderr.text)?.[1];
    if (url !== undefined) {
      try {
        const response = await fetch(url);
        scrapes.push({
          samples: parsePromText(await response.text()),
          type: String(response.headers.get('content-type')),
        });
      } catch {
        // Closed at the end of the run: the loop ends with it.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return { code: await run, stderr: stderr.text, scrapes, url };
}

describe('inferbench run --metrics-port', () => {
  it('serves /metrics during the run and, after it, the values summary.json has', async () => {
    const out = join(folder.dir, 'scraped');
    const profile = folder.writeProfile('open-loop', OPEN_LOOP);
    const result = await runScraping(
      ['run', profile, '--out', out, '--metrics-port', '0', '--quiet'],
      await emulators.start(),
    );
    expect(result.code).toBe(0);
    expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(result.scrapes[0]?.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const during = result.scrapes.filter((s) => promSum(s.samples, 'inferbench_run_ended') === 0);
    expect(during.some((s) => promSum(s.samples, 'inferbench_requests_total') > 0)).toBe(true);
    const last = result.scrapes.at(-1)?.samples ?? [];
    expect(promSum(last, 'inferbench_run_ended')).toBe(1);
    expect(result.stderr).toMatch(
      /keeping http:\/\/127\.0\.0\.1:\d+\/metrics up until it is scraped once more, at most 15s/,
    );
    expect(result.stderr).not.toMatch(/not scraped within/);

    const summary = readSummary(out);
    expect(summary.groups).toHaveLength(2);
    for (const group of summary.groups) {
      const where = { group: `${group.scenario}/${group.model}/-` };
      const ok = group.requests.ok;
      expect(ok).toBeGreaterThan(10);
      expect(promSum(last, 'inferbench_requests_total', { ...where, outcome: 'ok' })).toBe(ok);
      expect(promSum(last, 'inferbench_requests_total', { ...where, outcome: 'failed' })).toBe(group.requests.failed);
      expect(promSum(last, 'inferbench_ttft_seconds_count', where)).toBe(ok);
      expect(promSum(last, 'inferbench_e2e_seconds_count', where)).toBe(ok);
      const itl = group.metrics.itl_ms;
      expect(promSum(last, 'inferbench_itl_seconds_count', where)).toBe(itl?.count);
      const meanTtftMs = (1000 * promSum(last, 'inferbench_ttft_seconds_sum', where)) / ok;
      // summary.json's mean comes from an HDR histogram of 3 significant digits.
      expect(Math.abs(meanTtftMs - (group.metrics.ttft_ms?.mean as number))).toBeLessThan(
        0.01 * (group.metrics.ttft_ms?.mean as number),
      );
      const output = group.metrics.output_tokens;
      expect(promSum(last, 'inferbench_output_tokens_total', where)).toBeCloseTo(
        (output?.mean as number) * (output?.count as number),
        0,
      );
      expect(promSum(last, 'inferbench_ttft_seconds_bucket', { ...where, le: '+Inf' })).toBe(ok);
    }
    expect(promSum(last, 'inferbench_in_flight_requests')).toBe(0);
    // Closed after the last scrape.
    await expect(fetch(result.url as string)).rejects.toThrow();
  }, 30_000);

  it('equals summary.json with --workers, sessions, retries, faults, 429s and warmup', {
    timeout: 30_000,
    tags: ['slow'],
  }, async () => {
    const config = folder.writeProfile(
      'faulty-emulator',
      `models:
  - id: small-fast-8b
    faults: { http500: 0.15, stream_error: 0.05, reset: 0.05 }
  - id: tight-8b
    based_on: small-fast-8b
    limits: { requests_per_minute: 20 }
`,
    );
    const profile = folder.writeProfile(
      'faulty',
      `name: faulty
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
scenarios:
  - name: chat
    models: [small-fast-8b, tight-8b]
    load: { mode: concurrency, concurrency: 3 }
    duration: 2s
    warmup_requests: 2
    retry: { max_attempts: 2, on: [http_5xx], backoff: 5ms }
    request: { max_completion_tokens: 16 }
    prompt: { input_tokens: 32 }
    session: { turns: { dist: uniform, min: 2, max: 3 }, think_time: 20ms, user_tokens: 16 }
live: { metrics_linger: 20s }
`,
    );
    const out = join(folder.dir, 'faulty-run');
    const { argv, env } = withTarget(
      ['run', profile, '--out', out, '--metrics-port', '0', '--workers', '2', '--quiet'],
      { PATH: process.env.PATH },
      await emulators.start({ configPath: config }),
    );
    const stderr = new MemoryStream();
    const ctx: CliContext = {
      stdout: new MemoryStream(),
      stderr,
      env,
      cwd: folder.dir,
      interrupt: new AbortController().signal,
      exitCode: 0,
    };
    const run = runCli(argv, ctx);
    // The one scrape after the run's end, which ends its linger.
    let url: string | undefined;
    while (url === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      url = /keeping (http:\/\/\S+\/metrics) up/.exec(stderr.text)?.[1];
    }
    const last = parsePromText(await (await fetch(url)).text());
    await run;
    expect(promSum(last, 'inferbench_run_ended')).toBe(1);
    const summary = readSummary(out);
    let failed = 0;
    let throttled = 0;
    for (const group of summary.groups) {
      const where = { group: group.key };
      const requests = group.requests;
      const errors = requests.errors;
      failed += requests.failed;
      throttled += errors.http_429 ?? 0;
      expect(promSum(last, 'inferbench_requests_total', { ...where, outcome: 'ok' })).toBe(requests.ok);
      expect(promSum(last, 'inferbench_requests_total', { ...where, outcome: 'failed' })).toBe(requests.failed);
      expect(promSum(last, 'inferbench_requests_total', { ...where, outcome: 'throttled' })).toBe(errors.http_429 ?? 0);
      for (const sample of promSamples(last, 'inferbench_request_errors_total', where))
        expect(sample.value, sample.labels.class).toBe(errors[sample.labels.class as string] ?? 0);
      expect(promSum(last, 'inferbench_ttft_seconds_count', where)).toBe(requests.ok);
      expect(promSum(last, 'inferbench_itl_seconds_count', where)).toBe(group.metrics.itl_ms?.count ?? 0);
      expect(promSum(last, 'inferbench_schedule_lag_seconds_count', where)).toBe(group.metrics.schedule_lag_ms?.count);
    }
    // The run's faults and limits did bite: the comparison above covered failures and 429s.
    expect(failed).toBeGreaterThan(0);
    expect(throttled).toBeGreaterThan(0);
    expect(promSum(last, 'inferbench_dropped_requests_total')).toBe(
      summary.groups.reduce((sum, group) => sum + group.requests.dropped, 0),
    );
  });

  it('takes the port from the profile; waits at most live.metrics_linger for a scrape, then closes', async () => {
    const profile = folder.writeProfile(
      'live-block',
      `${OPEN_LOOP.replace('duration: 2s', 'requests: 6')}live: { metrics_port: 0, metrics_linger: 1s }\n`,
    );
    const started = performance.now();
    const result = await runCliInProcess(['run', profile, '--out', join(folder.dir, 'linger'), '--quiet'], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/inferbench: metrics: http:\/\/127\.0\.0\.1:\d+\/metrics \(Prometheus\)/);
    expect(result.stderr).toMatch(/at most 1s .*\n.*not scraped within 1s after the run; closing/);
    expect(performance.now() - started).toBeGreaterThan(1_000);
  }, 30_000);

  it('closes at once with metrics_linger 0', async () => {
    const profile = folder.writeProfile(
      'no-linger',
      `${OPEN_LOOP.replace('duration: 2s', 'requests: 4')}live: { metrics_port: 0, metrics_linger: 0 }\n`,
    );
    const result = await runCliInProcess(['run', profile, '--out', join(folder.dir, 'no-linger'), '--quiet'], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/metrics: http:/);
    expect(result.stderr).not.toMatch(/keeping|not scraped/);
  }, 30_000);

  it('refuses a taken port with exit 2 before sending anything, and --metrics-host without a port', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      const out = join(folder.dir, 'taken');
      const profile = folder.writeProfile('taken', OPEN_LOOP);
      // An in-process target: without one, the embedded child starts (seconds) before the port is tried.
      const result = await runCliInProcess(['run', profile, '--out', out, '--metrics-port', String(port)], {
        cwd: folder.dir,
        target: await emulators.start(),
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`cannot serve /metrics on 127.0.0.1:${port}: EADDRINUSE`);
      expect(result.stderr).toMatch(/--metrics-port 0 for any free port/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(join(out, 'requests.csv'))).toBe(false);
      // Decided by the flags and the profile alone: refused before the target is opened (nothing listens on port 9).
      const hostOnly = await runCliInProcess(
        ['run', profile, '--out', out, '--metrics-host', '0.0.0.0', '--base-url', 'http://127.0.0.1:9'],
        { cwd: folder.dir },
      );
      expect(hostOnly.code, hostOnly.stderr).toBe(2);
      expect(hostOnly.stderr).not.toContain('inferbench: running');
      expect(hostOnly.stderr).toMatch(/--metrics-host needs a port/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 30_000);
});
