/**
 * `run --workers N` on real sockets: two worker threads send the same prompts as one thread and their
 * results merge exactly (the same counts and histogram totals, requests.csv with a row per request and
 * unique ids, per-worker health in summary.json); an open loop split over workers drops nothing and its
 * time series adds up (both from one profile of the two loops, run once in one thread and once in two);
 * a target that cannot be reached fails as it does in one thread; Ctrl-C stops every worker and keeps
 * what was measured; a bad --workers is a usage error. Each run in threads starts two of them (about a
 * CPU-second each on this machine), so the file makes as few such runs as its checks need: three.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeHistogram } from '../../src/aggregate/histogram.js';
import type { MetricName, RunSummary } from '../../src/metrics/run-summary.js';
import { parseCsvRecords } from '../../src/util/csv-records.js';
import { parseWorkers } from '../../src/cli/worker-count.js';
import { runCliInProcess } from '../helpers/cli.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';
import { startVllmLikeServer, VLLM_MODEL, type VllmLikeServer } from '../helpers/vllm-like-server.js';

const folder = useRunFolder('inferbench-workers-');
let server: VllmLikeServer;

beforeAll(async () => {
  server = await startVllmLikeServer();
});
afterAll(async () => {
  await server.close();
});

function requestRows(dir: string): Record<string, string>[] {
  return parseCsvRecords(readFileSync(join(dir, 'requests.csv'), 'utf8')).records;
}

function onlyGroup(summary: RunSummary) {
  const group = summary.groups[0];
  if (group === undefined) throw new Error(`${summary.run_id} has no group`);
  return group;
}

/** Every profile counts with the tiny tokenizer: o200k would load in each worker thread, seconds each. */
const TARGET = `target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }\n`;

const closedLoop = `name: workers-closed
${TARGET}scenarios:
  - name: s
    models: [${VLLM_MODEL}]
    load: { mode: concurrency, concurrency: 4 }
    requests: 30
    warmup_requests: 2
    prompt: { input_tokens: 24, output_tokens: 12 }
    seed: 11
`;

/**
 * The closed loop, then an open loop (scenarios run one after the other): one run of it in one thread and
 * one in two worker threads answer the first two tests, so the file starts two threads fewer.
 */
const bothLoops = `${closedLoop.replace('name: workers-closed', 'name: workers-both')}  - name: o
    models: [${VLLM_MODEL}]
    load: { mode: rate, rate: 40, arrival: poisson, max_concurrency: 64 }
    duration: 2s
    prompt: { input_tokens: 16, output_tokens: 4 }
`;

/** The user message of every request of the closed loop (12 output tokens; the open loop asks 4) in `bodies`, sorted. */
function closedLoopPrompts(bodies: readonly Record<string, unknown>[]): string[] {
  return bodies
    .filter((body) => body['max_completion_tokens'] === 12)
    .map((body) => JSON.stringify(body['messages']))
    .sort();
}

function groupOf(summary: RunSummary, scenario: string) {
  const group = summary.groups.find((g) => g.scenario === scenario);
  if (group === undefined) throw new Error(`${summary.run_id} has no group of scenario ${scenario}`);
  return group;
}

describe('run --workers', () => {
  describe('a closed loop then an open loop, run in one thread and in two', () => {
    let single = '';
    let threaded = '';
    let threadedStderr = '';
    let singleBodies: Record<string, unknown>[] = [];
    let threadedBodies: Record<string, unknown>[] = [];
    beforeAll(async () => {
      const path = folder.writeProfile('both', bothLoops);
      const run = async (out: string, extra: string[]) => {
        const dir = join(folder.dir, out);
        const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', dir, ...extra], {
          cwd: folder.dir,
        });
        expect(result.code, result.stderr).toBe(0);
        return { dir, stderr: result.stderr };
      };
      const before = server.bodies.length;
      single = (await run('single', [])).dir;
      const middle = server.bodies.length;
      const two = await run('threaded', ['--workers', '2']);
      [threaded, threadedStderr] = [two.dir, two.stderr];
      singleBodies = server.bodies.slice(before, middle);
      threadedBodies = server.bodies.slice(middle);
    }, 120_000);

    it('sends the prompts of one thread and merges into the numbers of one run', () => {
      const singlePrompts = closedLoopPrompts(singleBodies);
      // Warmups included: both sent 32 requests, and exactly the same prompts.
      expect(singlePrompts).toHaveLength(32);
      expect(closedLoopPrompts(threadedBodies)).toEqual(singlePrompts);

      const one = readSummary(single);
      const two = readSummary(threaded);
      expect(one.workers).toBe(1);
      expect(two.workers).toBe(2);
      expect(two.workload_hash).toBe(one.workload_hash);
      expect(two.complete).toBe(true);
      const [g1, g2] = [groupOf(one, 's'), groupOf(two, 's')];
      expect(g2.requests.ok).toBe(30);
      expect(g2.requests).toEqual(g1.requests);
      expect(g2.tokens).toEqual(g1.tokens);
      // Each worker opens its own connections, so connect_ms and tls_handshake_ms count differently.
      const perConnection: readonly string[] = ['connect_ms', 'tls_handshake_ms'];
      const names = (Object.keys(g1.histograms) as MetricName[]).filter((name) => !perConnection.includes(name));
      expect(names).toContain('ttft_ms');
      expect(names).toContain('itl_ms');
      for (const metric of names) {
        const total = (encoded: string | undefined): number =>
          encoded === undefined ? 0 : decodeHistogram(encoded).totalCount;
        expect(total(g2.histograms[metric]), metric).toBe(total(g1.histograms[metric]));
      }
      expect(g2.metrics.output_tokens?.max).toBe(12);

      const workers = two.harness.workers ?? [];
      expect(workers.map((w) => [w.worker, w.share.index, w.share.count, w.complete])).toEqual([
        [1, 1, 2, true],
        [2, 2, 2, true],
      ]);
      for (const worker of workers) expect(worker.health.event_loop_delay_ms.p99).toBeGreaterThanOrEqual(0);

      const rows = requestRows(threaded);
      const closed = rows.filter((row) => row['scenario'] === 's');
      expect(closed.filter((row) => row['warmup'] === '0')).toHaveLength(30);
      expect(closed.filter((row) => row['warmup'] === '1')).toHaveLength(2);
      expect(new Set(rows.map((row) => row['id'])).size).toBe(rows.length);
      // Every worker's timestamps are on the coordinator's clock (thread-clock.test.ts checks it closely).
      for (const row of rows) expect(Number(row['start_ms'])).toBeGreaterThanOrEqual(0);
    });

    it('splits an open loop over the workers: nothing dropped, the time series adds up', () => {
      expect(threadedStderr).toContain('in 2 worker threads');
      const summary = readSummary(threaded);
      const group = groupOf(summary, 'o');
      expect(group.requests.dropped).toBe(0);
      // 40/s for 2 s: a Poisson count far outside 30..130 would mean a worker sent the whole rate or none.
      expect(group.requests.ok).toBeGreaterThan(30);
      expect(group.requests.ok).toBeLessThan(130);
      const series = readFileSync(join(threaded, 'timeseries.csv'), 'utf8').trim().split('\n').slice(1);
      const started = series
        .filter((line) => line.startsWith(`${group.key},`))
        .reduce((sum, line) => sum + Number(line.split(',')[2]), 0);
      expect(started).toBe(group.requests.ok + group.requests.failed);
      expect(requestRows(threaded).filter((row) => row['group'] === group.key)).toHaveLength(
        group.requests.ok + group.requests.failed,
      );
      expect(summary.harness.schedule_lag_ms.p50).toBeGreaterThan(0);
    });
  });

  it('fails on an unreachable target as a run in one thread does', async () => {
    const path = folder.writeProfile('unreachable', closedLoop);
    const args = (out: string) => ['run', path, '--base-url', 'http://127.0.0.1:1', '--out', join(folder.dir, out)];
    const single = await runCliInProcess(args('u1'), { cwd: folder.dir });
    const threaded = await runCliInProcess([...args('u2'), '--workers', '2'], { cwd: folder.dir });
    expect(single.code).not.toBe(0);
    expect(threaded.code).toBe(single.code);
    const failure = (text: string) => text.split('\n').filter((line) => !line.includes('running workers-closed'));
    expect(threaded.stderr).toContain('ECONNREFUSED');
    expect(failure(threaded.stderr)).toEqual(failure(single.stderr));
  }, 60_000);

  it('stops every worker on Ctrl-C and keeps what was measured', async () => {
    const path = folder.writeProfile(
      'long',
      `name: workers-long
${TARGET}scenarios:
  - name: l
    models: [${VLLM_MODEL}]
    load: { mode: concurrency, concurrency: 2 }
    duration: 60s
    prompt: { input_tokens: 16, output_tokens: 4 }
`,
    );
    const dir = join(folder.dir, 'long');
    const interrupt = new AbortController();
    const running = runCliInProcess(['run', path, '--base-url', server.url, '--out', dir, '--workers', '2'], {
      cwd: folder.dir,
      interrupt: interrupt.signal,
    });
    // Ctrl-C once the workers are sending (their start takes longer on a loaded machine than any fixed wait).
    const before = server.bodies.length;
    const sending = setInterval(() => {
      if (server.bodies.length - before < 8) return;
      clearInterval(sending);
      setTimeout(() => interrupt.abort(), 300);
    }, 25);
    const started = Date.now();
    const result = await running;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.stderr).toContain('interrupted');
    const summary = readSummary(dir);
    expect(summary.complete).toBe(false);
    expect(onlyGroup(summary).requests.ok).toBeGreaterThan(0);
    expect(requestRows(dir).length).toBeGreaterThanOrEqual(onlyGroup(summary).requests.ok);
  }, 60_000);

  it('takes a count or auto, and refuses anything else', async () => {
    expect(parseWorkers('3', 8)).toBe(3);
    expect(parseWorkers('auto', 8)).toBe(7);
    expect(parseWorkers('auto', 2)).toBe(2);
    expect(parseWorkers(' AUTO ', 1)).toBe(1);
    for (const bad of ['0', '-1', '1.5', 'two', '', '257'])
      expect(() => parseWorkers(bad, 4), bad).toThrow(/--workers/);
    const path = folder.writeProfile('bad-workers', closedLoop);
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--workers', 'many'], {
      cwd: folder.dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--workers "many" is not a number from 1 to 256 or auto');
  });
});
