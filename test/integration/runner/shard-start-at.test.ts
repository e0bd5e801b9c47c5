/**
 * `run --shard i/N` and `--start-at`, end to end against a vLLM-like server on a real socket: two shards
 * of a closed-loop profile send, together, exactly the requests (the prompts) of one unsharded run, and
 * each summary.json and folder names its shard; `--start-at` holds the first request until its time,
 * warns about a time already past, refuses a bad one (exit 2), and ends cleanly on Ctrl-C while waiting.
 */
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli.js';
import { readFileSync } from 'node:fs';
import { parseCsvRecords } from '../../../src/util/csv-records.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';
import { startVllmLikeServer, type VllmLikeServer } from '../../helpers/vllm-like-server.js';

const folder = useRunFolder('inferbench-shard-');

const servers: VllmLikeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function vllm(): Promise<VllmLikeServer> {
  const server = await startVllmLikeServer({ tokens: 4 });
  servers.push(server);
  return server;
}

const PROFILE = `name: sharded
scenarios:
  - name: s
    load: { mode: concurrency, concurrency: 3 }
    requests: 10
    prompt: { input_tokens: { dist: uniform, min: 8, max: 64 } }
    seed: 7
`;

/** The prompts a server received, as one sortable string per request. */
function prompts(server: VllmLikeServer): string[] {
  return server.bodies.map((body) => JSON.stringify(body['messages'])).sort();
}

function chatArrivals(server: VllmLikeServer): number[] {
  return server.requests
    .filter((req) => req.method === 'POST' && req.url.endsWith('/chat/completions'))
    .map((req) => performance.timeOrigin + req.arrivedMs);
}

describe('run --shard', () => {
  it('shards merged with `inferbench merge` equal one unsharded run: counts and histogram totals', async () => {
    const path = folder.writeProfile('merged', PROFILE);
    const whole = await vllm();
    const singleDir = join(folder.dir, 'merge-single');
    expect(
      (
        await runCliInProcess(['run', path, '--base-url', whole.url, '--out', singleDir, '--quiet'], {
          cwd: folder.dir,
        })
      ).code,
    ).toBe(0);
    const sharded = await vllm();
    const shardDirs = [1, 2].map((i) => join(folder.dir, `merge-shard-${i}`));
    const shardRuns = await Promise.all(
      [1, 2].map((i) =>
        runCliInProcess(
          ['run', path, '--base-url', sharded.url, '--shard', `${i}/2`, '--out', shardDirs[i - 1] as string, '--quiet'],
          {
            cwd: folder.dir,
          },
        ),
      ),
    );
    expect(shardRuns.map((run) => run.code)).toEqual([0, 0]);
    const mergedDir = join(folder.dir, 'merge-merged');
    const merged = await runCliInProcess(['merge', ...shardDirs, '--out', mergedDir, '--quiet'], { cwd: folder.dir });
    expect(merged.code).toBe(0);
    const one = readSummary(singleDir).groups[0]!;
    const both = readSummary(mergedDir).groups[0]!;
    expect(both.key).toBe(one.key);
    expect(both.requests.ok).toBe(one.requests.ok);
    expect(both.requests.ok).toBe(10);
    // Every request's counts are the server's, so the token histograms are equal, not only their totals.
    for (const metric of ['output_tokens', 'input_tokens', 'ttft_ms', 'e2e_ms'] as const) {
      expect(both.metrics[metric]?.count, metric).toBe(one.metrics[metric]?.count);
    }
    expect(both.metrics.output_tokens).toEqual(one.metrics.output_tokens);
    expect(both.metrics.input_tokens).toEqual(one.metrics.input_tokens);
  });

  it('two shards send together exactly the requests of one unsharded run, each recording its shard', async () => {
    // Warmup too: 3 warmup requests split 2 + 1, then 10 measured split 5 + 5, 13 prompts in all.
    const path = folder.writeProfile(
      'sharded',
      PROFILE.replace('requests: 10', 'requests: 10\n    warmup_requests: 3'),
    );
    const whole = await vllm();
    const single = await runCliInProcess(
      ['run', path, '--base-url', whole.url, '--out', join(folder.dir, 'single'), '--quiet'],
      { cwd: folder.dir },
    );
    expect(single.code).toBe(0);
    expect(whole.bodies).toHaveLength(13);

    const sharded = await vllm();
    const shardRuns = await Promise.all(
      [1, 2].map((i) =>
        runCliInProcess(['run', path, '--base-url', sharded.url, '--shard', `${i}/2`], { cwd: folder.dir }),
      ),
    );
    for (const run of shardRuns) expect(run.stderr).not.toMatch(/internal error/);
    expect(shardRuns.map((run) => run.code)).toEqual([0, 0]);
    expect(sharded.bodies).toHaveLength(13);
    expect(new Set(prompts(whole)).size).toBe(13);
    expect(prompts(sharded)).toEqual(prompts(whole));

    for (const [i, run] of shardRuns.entries()) {
      const runDir = /report: (.+)/.exec(run.stdout)?.[1] as string;
      expect(basename(runDir)).toMatch(new RegExp(`-sharded-shard-${i + 1}-of-2$`));
      expect(run.stderr).toContain(`(shard ${i + 1}/2)`);
      const summary = readSummary(runDir);
      expect(summary.shard).toEqual({ index: i + 1, count: 2 });
      expect(summary.start_at).toBeNull();
      expect(summary.run_id).toMatch(/-shard-\d-of-2$/);
      expect(summary.groups[0]?.requests.ok).toBe(5);
      // The whole profile is recorded, so shards of one run can be told to belong together.
      expect(summary.workload_hash).toBe(readSummary(join(folder.dir, 'single')).workload_hash);
    }
    expect(readSummary(join(folder.dir, 'single')).shard).toBeNull();
  });

  it('says so when a shard has nothing to send for a scenario', async () => {
    const server = await vllm();
    const path = folder.writeProfile('one-user', PROFILE.replace('concurrency: 3', 'concurrency: 1'));
    const out = join(folder.dir, 'idle');
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--shard', '2/2', '--out', out], {
      cwd: folder.dir,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/shard 2\/2 sends nothing for scenario s: concurrency 1 split over 2 shards/);
    expect(server.bodies).toHaveLength(0);
  });

  it('refuses a malformed shard with exit 2 before sending anything', async () => {
    const server = await vllm();
    const path = folder.writeProfile('bad-shard', PROFILE);
    for (const bad of ['3/2', '0/1', 'two']) {
      const result = await runCliInProcess(['run', path, '--base-url', server.url, '--shard', bad], {
        cwd: folder.dir,
      });
      expect(result.code, bad).toBe(2);
      expect(result.stderr).toMatch(/--shard/);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('run --start-at', () => {
  it('holds the first request until the given time and records it', async () => {
    const path = folder.writeProfile('later', PROFILE.replace('requests: 10', 'requests: 3'));
    // A run first, on a server of its own: the harness's modules and the tokenizer's vocabulary are loaded
    // before the clock below (loading them cold on a loaded machine took longer than the wait).
    const warm = await runCliInProcess(['run', path, '--base-url', (await vllm()).url, '--quiet'], { cwd: folder.dir });
    expect(warm.code).toBe(0);
    const server = await vllm();
    const startAt = new Date(Date.now() + 2000);
    const out = join(folder.dir, 'later');
    const result = await runCliInProcess(
      ['run', path, '--base-url', server.url, '--start-at', startAt.toISOString(), '--out', out],
      { cwd: folder.dir },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`waiting until ${startAt.toISOString()}`);
    const arrivals = chatArrivals(server);
    expect(arrivals).toHaveLength(3);
    // Generous: timer and clock granularity, never a request a whole step early.
    expect(Math.min(...arrivals)).toBeGreaterThanOrEqual(startAt.getTime() - 50);
    const summary = readSummary(out);
    expect(summary.start_at).toBe(startAt.toISOString());
    expect(Date.parse(summary.started_at)).toBeGreaterThanOrEqual(startAt.getTime() - 50);
    // requests.csv counts from the same start as summary.json (after the wait, not from when the file
    // opened): each start_ms is the arrival's distance from started_at, not the seconds the wait took more.
    const rows = parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8')).records;
    const startedAt = Date.parse(summary.started_at);
    const arrivedAfterStart = [...arrivals].sort((a, b) => a - b).map((at) => at - startedAt);
    const startMs = rows.map((row) => Number(row['start_ms'])).sort((a, b) => a - b);
    expect(startMs).toHaveLength(3);
    for (const [i, ms] of startMs.entries()) {
      // The client's send to the server's arrival on one machine: well under 250 ms even when loaded.
      expect(ms).toBeGreaterThanOrEqual(-5);
      expect(Math.abs(ms - (arrivedAfterStart[i] as number))).toBeLessThan(250);
    }
  });

  it('starts at once with a warning when the time is past', async () => {
    const server = await vllm();
    const path = folder.writeProfile('past', PROFILE.replace('requests: 10', 'requests: 2'));
    const result = await runCliInProcess(
      ['run', path, '--base-url', server.url, '--start-at', '2020-01-01T00:00:00Z', '--out', join(folder.dir, 'past')],
      { cwd: folder.dir },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: --start-at 2020-01-01T00:00:00.000Z is [\d.]+ s in the past; starting now/);
    expect(server.bodies).toHaveLength(2);
  });

  it('refuses a time it cannot read with exit 2', async () => {
    const server = await vllm();
    const path = folder.writeProfile('bad-time', PROFILE);
    for (const bad of ['tomorrow', '2026-13-01T00:00:00Z', '2026-11-23 10:00', '2026-11-23T10:00:00']) {
      const result = await runCliInProcess(['run', path, '--base-url', server.url, '--start-at', bad], {
        cwd: folder.dir,
      });
      expect(result.code, bad).toBe(2);
      expect(result.stderr).toMatch(/--start-at .* is not an ISO 8601 time/);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('ends cleanly with exit 130 on Ctrl-C during the wait, sending nothing', async () => {
    const server = await vllm();
    const path = folder.writeProfile('wait-stop', PROFILE);
    const interrupt = new AbortController();
    const startAt = new Date(Date.now() + 60_000).toISOString();
    const started = Date.now();
    setTimeout(() => interrupt.abort(), 500);
    const result = await runCliInProcess(
      ['run', path, '--base-url', server.url, '--start-at', startAt, '--out', join(folder.dir, 'wait-stop')],
      { cwd: folder.dir, interrupt: interrupt.signal },
    );
    expect(result.code).toBe(130);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(server.bodies).toHaveLength(0);
    expect(readSummary(join(folder.dir, 'wait-stop')).complete).toBe(false);
  });
});
