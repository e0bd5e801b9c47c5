/**
 * The live views pass the target's own metrics on while a run goes: a run with target.server_metrics
 * against an emulator in this process (its model cut to 2 slots, 8 users: a queue forms), scraped through a
 * recorder that keeps every body the emulator's /metrics answered, with `--metrics-port` and `--dashboard`.
 * Polled while the run goes, /metrics' `inferbench_server_*` gauges and the dashboard's server status each
 * show running, waiting and KV-cache use equal, all three together, to one body the emulator answered a
 * moment before (the scrape the last tick read); after the run every point of the dashboard's server
 * columns is such a body, in the order they were answered. The same with `--workers 2`, where only the
 * main thread scrapes. The endpoint's URL carries a password: the views name it with `***`, never the password.
 * Slow on purpose (runs of seconds, scraped once a second): not in test:fast.
 * @module-tag slow
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/run-cli.js';
import type { Emulator } from '../../src/emulator/emulator.js';
import type { LiveStateMessage } from '../../src/report/live/live-feed.js';
import { MemoryStream, withTarget } from '../helpers/cli.js';
import { catalogWithCapacity, type RunTarget, startEmulatorWith } from '../helpers/in-process-emulator.js';
import { type MetricsRecorder, startMetricsRecorder } from '../helpers/metrics-recorder.js';
import { parsePromText, promSamples, promSum } from '../helpers/prometheus-text.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-live-server-metrics-');
let emulator: Emulator;
let target: RunTarget;
/** Passes GET /metrics on to the emulator and keeps every body it answered, in order. */
let recorder: MetricsRecorder;
const PASSWORD = 'sc4pe-S3cret';
/** The recorder's URL with a user and password, as the profile gives it, and as the views must name it. */
const withPassword = (secret: string) => recorder.url.replace('http://', `http://scraper:${secret}@`);
/** The running, waiting and KV-cache use of each body the recorder answered, in order. */
let exposed: Triple[] = [];

/** running, waiting, KV-cache use: compared together, so a value cannot match one body by chance. */
type Triple = readonly [number, number, number];

beforeAll(async () => {
  ({ emulator, target } = await startEmulatorWith(catalogWithCapacity({ 'small-fast-8b': { slots: 2, jitter: 0 } })));
  recorder = await startMetricsRecorder(`${emulator.url}/metrics`, (text) => {
    const samples = parsePromText(text);
    const kv = samples.filter((s) => s.name === 'vllm:kv_cache_usage_perc').map((s) => s.value);
    exposed.push([
      promSum(samples, 'vllm:num_requests_running'),
      promSum(samples, 'vllm:num_requests_waiting'),
      // The preset takes the max over label sets (models).
      Math.max(...kv),
    ]);
  });
});

afterAll(async () => {
  await recorder.close();
  await emulator.close();
});

/** What one poll saw, and how many bodies the recorder had answered when it started and when it ended. */
interface Seen {
  readonly before: number;
  readonly after: number;
  readonly metrics: Triple | null;
  readonly dashboard: Triple | null;
}

/** Runs the CLI in-process, polling /metrics and the dashboard's /state every 200 ms until it ends. */
async function runPolling(args: string[]) {
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
  const seen: Seen[] = [];
  let lastState: LiveStateMessage | null = null;
  let leaked = false;
  while (!done) {
    const metricsUrl = /metrics: (http:\/\/\S+\/metrics)/.exec(stderr.text)?.[1];
    const dashboardUrl = /dashboard: (http:\/\/\S+\/)/.exec(stderr.text)?.[1];
    if (metricsUrl !== undefined && dashboardUrl !== undefined) {
      try {
        const before = exposed.length;
        const [text, state] = await Promise.all([
          fetch(metricsUrl).then((r) => r.text()),
          fetch(`${dashboardUrl}state`).then((r) => r.json() as Promise<LiveStateMessage>),
        ]);
        const after = exposed.length;
        leaked ||= text.includes(PASSWORD) || JSON.stringify(state).includes(PASSWORD);
        const samples = parsePromText(text);
        const where = { endpoint: withPassword('***') };
        const gauge = (name: string) => promSamples(samples, name, where)[0]?.value;
        const running = gauge('inferbench_server_running_requests');
        const waiting = gauge('inferbench_server_waiting_requests');
        const kv = gauge('inferbench_server_kv_cache_usage_ratio');
        const server = state.status.server;
        seen.push({
          before,
          after,
          metrics: running === undefined || waiting === undefined || kv === undefined ? null : [running, waiting, kv],
          dashboard:
            server?.running == null || server.waiting === null || server.kvCacheUsage === null
              ? null
              : [server.running, server.waiting, server.kvCacheUsage],
        });
        lastState = state;
      } catch {
        // Closed at the end of the run: the loop ends with it.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { code: await run, stderr: stderr.text, seen, lastState, leaked };
}

/**
 * The body a poll's triple came from: one the recorder answered before the poll ended, and at most four
 * before it started (the tick that took it is up to a second old, a scrape parsed after its body was
 * answered, /metrics' body reused for 100 ms). -1: none.
 */
function bodyOf(triple: Triple, poll: Seen): number {
  for (let k = poll.after - 1; k >= Math.max(0, poll.before - 4); k--)
    if (JSON.stringify(exposed[k]) === JSON.stringify(triple)) return k;
  return -1;
}

const PROFILE = (name: string) => `name: ${name}
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)}, server_metrics: [{ url: URL }] }
scenarios:
  - name: s
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 8 }
    duration: 5s
    warmup_requests: 2
    prompt: { input_tokens: 32, output_tokens: 40 }
    request: { max_completion_tokens: 40 }
    seed: 3
live: { metrics_linger: 10s }
`;

describe('the live views during a run with target.server_metrics', () => {
  it.each([
    ['one thread', []],
    ['--workers 2', ['--workers', '2']],
  ])(
    "show the server's running, waiting and KV cache as the emulator answered (%s)",
    async (name, extra) => {
      exposed = [];
      const path = folder.writeProfile(
        `live-${extra.length}`,
        PROFILE(`live-${extra.length}`).replace('URL', JSON.stringify(withPassword(PASSWORD))),
      );
      const out = join(folder.dir, `out-${extra.length}`);
      const result = await runPolling([
        'run',
        path,
        '--out',
        out,
        '--metrics-port',
        '0',
        '--dashboard',
        '0',
        '--quiet',
        ...extra,
      ]);
      expect(result.code, result.stderr).toBe(0);
      // One scraper: every body answered went to the run's one scraping thread.
      // (The GET under way when the run ended may not have reached the emulator.)
      const attempts = readSummary(out).server_metrics?.[0]?.attempts ?? 0;
      expect(attempts - exposed.length, name).toBeGreaterThanOrEqual(0);
      expect(attempts - exposed.length, name).toBeLessThanOrEqual(1);

      const withServer = result.seen.filter((poll) => poll.metrics !== null && poll.dashboard !== null);
      expect(withServer.length, JSON.stringify(result.seen)).toBeGreaterThanOrEqual(5);
      for (const poll of withServer) {
        const shown = JSON.stringify(poll);
        expect(bodyOf(poll.metrics as Triple, poll), `/metrics ${shown} in ${JSON.stringify(exposed)}`).toBeGreaterThan(
          -1,
        );
        expect(bodyOf(poll.dashboard as Triple, poll), `/state ${shown} in ${JSON.stringify(exposed)}`).toBeGreaterThan(
          -1,
        );
      }
      // The queue was seen live (2 slots, 8 users), and KV use moved off zero.
      expect(Math.max(...withServer.map((poll) => (poll.metrics as Triple)[1]))).toBeGreaterThan(0);
      expect(Math.max(...withServer.map((poll) => (poll.metrics as Triple)[2]))).toBeGreaterThan(0);

      // The dashboard's history: every point with the server is a body answered, in the order answered.
      const series = result.lastState?.series;
      const column = (key: string) => series?.data[series.columns.indexOf(key)] ?? [];
      const [running, waiting, kv] = ['server.running', 'server.waiting', 'server.kv_cache_usage'].map(column);
      let previous = 0;
      let points = 0;
      for (let i = 0; i < (running?.length ?? 0); i++) {
        if (running?.[i] == null) continue;
        const triple = JSON.stringify([running[i], waiting?.[i], kv?.[i]]);
        const k = exposed.findIndex((body, at) => at >= previous && JSON.stringify(body) === triple);
        expect(k, `point ${i} ${triple} after body ${previous} of ${JSON.stringify(exposed)}`).toBeGreaterThan(-1);
        previous = k;
        points++;
      }
      expect(points).toBeGreaterThanOrEqual(4);
      expect(result.stderr).not.toContain('server metrics');
      expect(result.leaked).toBe(false);
      expect(result.stderr).not.toContain(PASSWORD);
    },
    60_000,
  );
});
