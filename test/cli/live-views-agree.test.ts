/**
 * One owner of the numbers: a run with 429s (some recovered by a retry, some final), failures and open-loop
 * drops, served both as Prometheus' /metrics and as the live dashboard, in-process against an emulator with
 * faults and a rate limit over real sockets. After the run, /metrics' counters, the dashboard's final table and
 * summary.json give every group the same ok, failed, throttled and per-class counts: a second place that
 * counted outcomes (or told 429 from failure) its own way would show here. The emulator runs in this process
 * with the run's emulator config (the embedded child, a node start and a tokenizer load, is not the subject).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/run-cli.js';
import type { LiveStateMessage } from '../../src/report/live/live-feed.js';
import { MemoryStream, withTarget } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { parsePromText, promSamples, promSum } from '../helpers/prometheus-text.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-live-views-agree-');
const emulators = useInProcessEmulators();

describe('/metrics, the dashboard and summary.json', () => {
  it('count every finished request alike: 429s, retries, failures and drops', async () => {
    const config = folder.writeProfile(
      'emulator',
      `models:
  - id: small-fast-8b
    faults: { http500: 0.3, stream_error: 0.1 }
  - id: tight-8b
    based_on: small-fast-8b
    limits: { requests_per_minute: 30 }
`,
    );
    const profile = folder.writeProfile(
      'agree',
      `name: agree
scenarios:
  - name: chat
    models: [small-fast-8b, tight-8b]
    load: { mode: rate, rate: 40, arrival: poisson, max_concurrency: 2 }
    duration: 3s
    warmup_requests: 2
    retry: { max_attempts: 2, on: [http_429, http_5xx], backoff: 5ms }
    request: { max_completion_tokens: 16 }
    prompt: { input_tokens: 32 }
  # tight-8b's minute is spent by now and nothing retries: final 429s, whatever the machine's load (a
  # retried 429 waits for retry-after and then recovers, so the first scenario's may all have).
  - name: spent
    models: [tight-8b]
    load: { mode: rate, rate: 10, arrival: constant }
    duration: 1s
    request: { max_completion_tokens: 16 }
    prompt: { input_tokens: 32 }
live: { metrics_linger: 20s }
`,
    );
    const out = join(folder.dir, 'run');
    const { argv, env } = withTarget(
      ['run', profile, '--out', out, '--metrics-port', '0', '--dashboard', '0', '--quiet'],
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
    // The run has ended and its results are written once /metrics waits for its last scrape; the dashboard
    // is up until then too.
    let metricsUrl: string | undefined;
    while (metricsUrl === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      metricsUrl = /keeping (http:\/\/\S+\/metrics) up/.exec(stderr.text)?.[1];
    }
    const dashboardUrl = /dashboard: (http:\/\/\S+\/)/.exec(stderr.text)?.[1] as string;
    const state = (await (await fetch(`${dashboardUrl}state`)).json()) as LiveStateMessage;
    const metrics = parsePromText(await (await fetch(metricsUrl)).text());
    expect(await run).toBe(0);
    expect(promSum(metrics, 'inferbench_run_ended')).toBe(1);
    expect(state.end?.status.state).toBe('ended');
    const table = state.end?.status.groups ?? [];

    const summary = readSummary(out);
    expect(summary.groups).toHaveLength(3);
    let failed = 0;
    let throttled = 0;
    let retriedThrottled = 0;
    let dropped = 0;
    for (const group of summary.groups) {
      const where = { group: group.key };
      const { ok, errors } = group.requests;
      const counts = { ok, failed: group.requests.failed, throttled: errors.http_429 ?? 0 };
      failed += counts.failed;
      throttled += counts.throttled;
      retriedThrottled += group.requests.retried?.http_429 ?? 0;
      dropped += group.requests.dropped;
      const fromMetrics = {
        ok: promSum(metrics, 'inferbench_requests_total', { ...where, outcome: 'ok' }),
        failed: promSum(metrics, 'inferbench_requests_total', { ...where, outcome: 'failed' }),
        throttled: promSum(metrics, 'inferbench_requests_total', { ...where, outcome: 'throttled' }),
      };
      const row = table.find((r) => r.key === group.key);
      expect(fromMetrics, group.key).toEqual(counts);
      expect({ ok: row?.ok, failed: row?.failed, throttled: row?.throttled }, group.key).toEqual(counts);
      expect(row?.errors, group.key).toEqual(errors);
      for (const sample of promSamples(metrics, 'inferbench_request_errors_total', where))
        expect(sample.value, sample.labels.class).toBe(errors[sample.labels.class as string] ?? 0);
      expect(promSum(metrics, 'inferbench_output_tokens_total', where)).toBeCloseTo(
        (group.metrics.output_tokens?.mean ?? 0) * (group.metrics.output_tokens?.count ?? 0),
        0,
      );
    }
    // Everything the comparison is about did happen: failures, final 429s, 429s a retry recovered, drops.
    const happened = JSON.stringify({ failed, throttled, retriedThrottled, dropped });
    expect(failed, happened).toBeGreaterThan(0);
    expect(throttled, happened).toBeGreaterThan(0);
    expect(retriedThrottled, happened).toBeGreaterThan(0);
    expect(dropped, happened).toBeGreaterThan(0);
    expect(promSum(metrics, 'inferbench_dropped_requests_total')).toBe(dropped);
  }, 60_000);
});
