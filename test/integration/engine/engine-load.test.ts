// @module-tag slow
/**
 * The harness against a real engine under load (issue 24): llama.cpp (node-llama-cpp, CPU, one thread)
 * serving a generated tiny llama behind test/helpers/engine/, over real sockets, with real `inferbench`
 * commands. What nobody here chose shows through: llama.cpp decodes the busy sequences in one batch, so the
 * time between tokens of each stream grows with the streams; an engine of 2 sequences under 8 streams queues
 * them, which `compare` tells from an engine of 8; and the engine's greedy counts are the same whether one
 * run or two shards sent the prompts, so `merge` is checked to the token.
 *
 * Effects are several-fold and compared on medians, never on a tight bound: the machine is loaded. The
 * compare test's runs spawn the built CLI (dist/: `npm run build` first, as `npm test` does).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { type EngineServer, startEngineServer } from '../../helpers/engine/engine-server.js';
import type { EngineRequestLog } from '../../helpers/engine/llama-engine.js';
import { TINY_BPE_TOKENIZER, wholeWordTokens, writeTinyLlama } from '../../helpers/engine/tiny-llama-gguf.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

const MAIN = resolve(import.meta.dirname, '..', '..', '..', 'dist', 'cli', 'main.js');
const folder = useRunFolder('inferbench-engine-load-');
let modelDir: string;
/** 256 wide, 4 layers (4.5M parameters): cheap tokens, for the runs whose subject is queueing and counts. */
let smallModel: string;
/** The default size (64 wide, 2 layers, 200k parameters): about a millisecond a token. */
let tinyModel: string;
/** Whole-word tokens of the fixture: a logit bias on them keeps every answer to its max_completion_tokens. */
let wordBias: Record<string, number>;
const servers: EngineServer[] = [];

async function engine(modelPath: string, sequences: number, contextSize = 1024): Promise<EngineServer> {
  const server = await startEngineServer({ modelPath, sequences, contextSize });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  modelDir = mkdtempSync(join(tmpdir(), 'inferbench-gguf-load-'));
  smallModel = writeTinyLlama(mkdtempSync(join(modelDir, 'small-')), { embedding: 256, layers: 4, seed: 7 }).path;
  tinyModel = writeTinyLlama(mkdtempSync(join(modelDir, 'tiny-'))).path;
  const hf = await loadHfTokenizer(TINY_BPE_TOKENIZER);
  wordBias = Object.fromEntries(wholeWordTokens(hf.encode).map((id) => [String(id), 100]));
});

afterAll(async () => {
  for (const server of servers.splice(0)) await server.close();
  rmSync(modelDir, { recursive: true, force: true });
});

function requestRows(runDir: string): Record<string, string>[] {
  return parse(readFileSync(join(runDir, 'requests.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The engine's own gaps between the tokens it produced for these requests. */
function engineGaps(logs: readonly EngineRequestLog[]): number[] {
  return logs.flatMap((log) => log.tokenTimesMs.slice(1).map((t, i) => t - (log.tokenTimesMs[i] as number)));
}

/**
 * The built CLI (dist/: `npm run build` first, as `npm test` does) in a process of its own, as a user runs it
 * beside a server. In this process the engine's thread would count as the harness's CPU time (a whole core:
 * `harness.client_bottleneck`), and its HTTP work would share the harness's event loop. Not spawnSync: the
 * engine answers from this process's event loop.
 */
function runCliProcess(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: folder.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

/** `inferbench run` in this process, or in a child process of its own with `spawned`. */
async function run(profile: string, out: string, spawned = false): Promise<string> {
  const dir = join(folder.dir, out);
  const args = ['run', profile, '--out', dir, '--quiet'];
  const result = spawned ? await runCliProcess(args) : await runCliInProcess(args, { cwd: folder.dir });
  expect(result.code, result.stderr).toBe(0);
  return dir;
}

describe('a real engine under load', () => {
  it("ITL and TPOT grow with the streams decoded together: 1, 2 and 4 sequences busy, as the engine's own gaps do", async () => {
    // 512 wide (17M parameters): a decode step's work grows with the tokens in its batch, so 4 streams take
    // 3-4x as long a token as one (measured: ~5 ms alone, 13-20 ms at 4); at 256 wide a step's fixed cost
    // hides it.
    const model = writeTinyLlama(mkdtempSync(join(modelDir, 'wide-')), { embedding: 512, layers: 4, seed: 3 }).path;
    const server = await engine(model, 4);
    // Each load three times, interleaved; the least of the three is kept: the machine's other work can only
    // slow a token down, so the least is the engine's own pace at that load. Answers of 20 tokens: 19 gaps a
    // stream, 38 to 152 a scenario for its p50 (40 tokens doubled the engine's work and proved no more).
    const rounds = [1, 2, 3];
    const loads = [1, 2, 4];
    const scenarios = rounds
      .flatMap((r) =>
        loads.map(
          (c) => `  - name: c${c}-${r}
    load: { mode: concurrency, concurrency: ${c} }
    requests: ${c * 2}
    prompt: { input_tokens: 48 }
    request: { stream: true, temperature: 0, max_completion_tokens: 20, logit_bias: ${JSON.stringify(wordBias)} }
`,
        ),
      )
      .join('');
    const profile = folder.writeProfile(
      'itl',
      `name: itl\ntarget: { base_url: ${JSON.stringify(server.url)}, tokenizer: ${JSON.stringify(TINY_BPE_TOKENIZER)} }\nscenarios:\n${scenarios}`,
    );
    const out = await run(profile, 'itl-run');
    const groups = readSummary(out).groups;
    const rows = requestRows(out);
    const harness = (name: string, metric: 'itl_ms' | 'tpot_ms') =>
      groups.find((g) => g.scenario === name)?.metrics[metric]?.p50 as number;
    const stamped = (name: string) =>
      median(
        engineGaps(
          rows
            .filter((r) => r.scenario === name)
            .map((r) => server.requests.find((log) => log.requestId === r.request_id) as EngineRequestLog),
        ),
      );
    const least = (value: (name: string) => number) =>
      loads.map((c) => Math.min(...rounds.map((r) => value(`c${c}-${r}`))));
    const itl = least((name) => harness(name, 'itl_ms'));
    const tpot = least((name) => harness(name, 'tpot_ms'));
    const stamps = least(stamped);
    const seen = `least p50 of 3 at 1, 2, 4 streams: harness ITL ${itl}, TPOT ${tpot}; engine gaps ${stamps.map((v) => v.toFixed(2))}`;
    // A second stream slows every token, and 4 streams take at least twice one stream's time (3-4x when
    // measured), in the harness's numbers and in the engine's own stamps alike. From 2 to 4 the step's cost
    // depends on the CPU: here it grew (13-20 ms at 4), on CI's machine the engine's own gaps were 14.97 ms at
    // 2 and 14.47 ms at 4, a batch as dear as the smaller one. So 4 may not be cheaper than 2 beyond noise
    // (15%), and where the engine's own stamps grew by a quarter or more, the harness must see it grow too.
    for (const values of [itl, tpot, stamps]) {
      expect(values[1], seen).toBeGreaterThan(values[0] as number);
      expect(values[2], seen).toBeGreaterThan(0.85 * (values[1] as number));
      expect(values[2], seen).toBeGreaterThan(2 * (values[0] as number));
    }
    if ((stamps[2] as number) > 1.25 * (stamps[1] as number)) {
      expect(itl[2], seen).toBeGreaterThan(itl[1] as number);
      expect(tpot[2], seen).toBeGreaterThan(tpot[1] as number);
    }
    // The harness's ITL is the engine's pace seen through a socket, scenario by scenario: the same size.
    for (const group of groups) {
      const engineGap = stamped(group.scenario);
      expect(group.metrics.itl_ms?.p50, seen).toBeGreaterThan(0.5 * engineGap);
      expect(group.metrics.itl_ms?.p50, seen).toBeLessThan(2 * engineGap);
    }
  });

  it('compare tells an engine of 2 sequences from one of 8 under 8 streams: TTFT regresses', async () => {
    const eight = await engine(tinyModel, 8, 512);
    const two = await engine(tinyModel, 2, 512);
    // 8 streams on 2 sequences: 6 requests wait for a sequence, each for whole answers (32-96 tokens), so TTFT
    // is several times the 8-sequence engine's, where every stream has its sequence and TTFT is a prefill
    // beside the others' decode steps. Sized as compare's own tests on real runs: 32 requests after 8 of
    // warmup, tolerances of 100% on the p50s, the tails (noise on a shared machine) off.
    const profile = (url: string) =>
      folder.writeProfile(
        `compare-${new URL(url).port}`,
        `name: engines
target: { base_url: ${JSON.stringify(url)}, tokenizer: ${JSON.stringify(TINY_BPE_TOKENIZER)} }
scenarios:
  - name: steady
    load: { mode: concurrency, concurrency: 8 }
    requests: 32
    warmup_requests: 8
    # Answers of 32 to 96 tokens: streams that end at different decode steps send their next request apart,
    # not eight at once.
    prompt: { input_tokens: 32, output_tokens: { dist: uniform, min: 32, max: 96 } }
    request: { stream: true, temperature: 0, logit_bias: ${JSON.stringify(wordBias)} }
    seed: 7
compare:
  tolerances:
    ttft_ms.p50: "100%"
    tpot_ms.p50: "100%"
    e2e_ms.p50: "100%"
`,
      );
    const tailsOff = ['ttft_ms.p99', 'itl_ms.p50', 'itl_ms.p99', 'tpot_ms.p99', 'e2e_ms.p99'].flatMap((m) => [
      '--tolerance',
      `${m}=off`,
    ]);
    // Each run in a process of its own: compare calls no regression from a candidate whose client was its own
    // bottleneck, and in this process the engine's CPU time would be counted as the client's.
    const baseline = await run(profile(eight.url), 'eight', true);
    const again = await run(profile(eight.url), 'eight-again', true);
    const queued = await run(profile(two.url), 'two', true);
    const ttft = (dir: string) => readSummary(dir).groups[0]?.metrics.ttft_ms?.p50 as number;
    const seen = `TTFT p50: 8 sequences ${ttft(baseline)} and ${ttft(again)} ms, 2 sequences ${ttft(queued)} ms`;
    expect(ttft(queued), seen).toBeGreaterThan(3 * ttft(baseline));

    const worse = await runCliInProcess(['compare', baseline, queued, '--out', folder.dir, ...tailsOff]);
    // Exit 99 naming TTFT; or, when the loaded machine delayed the candidate's own client (its event loop or
    // schedule over 10 ms at p99: the run says so) by as much as TTFT grew, the same regression found but
    // not called, exit 5.
    const harness = readSummary(queued).harness;
    const clientDelayMs = harness.event_loop_delay_ms.p99 + harness.schedule_lag_ms.p99;
    if (harness.client_bottleneck && !(ttft(queued) - ttft(baseline) > clientDelayMs)) {
      expect(worse.stdout).toMatch(/ttft_ms\.p50 .*not called \(client\)/);
      expect(worse.code, worse.stdout + worse.stderr).toBe(5);
      expect(worse.stdout).toMatch(/NOT CALLED: \d+ regression\(s\) .*steady\/[^ ]+\/- ttft_ms\.p50/);
    } else {
      expect(worse.stdout).toMatch(/ttft_ms\.p50 .*REGRESSION/);
      expect(worse.code, worse.stdout + worse.stderr).toBe(99);
      expect(worse.stdout).toMatch(/FAIL: \d+ regression\(s\) .*steady\/[^ ]+\/- ttft_ms\.p50/);
    }

    // The same engine twice: TTFT is not called a regression. Its decode speed is not asserted: in the side-by-side tier
    // the engine's share of the 2 cores moved its TPOT 3x between two back-to-back runs of one fresh clone
    // (3.11 -> 9.38 ms), and compare rightly called that a regression: the engine was slower.
    const same = await runCliInProcess(['compare', baseline, again, '--out', folder.dir, '--json', ...tailsOff]);
    const result = JSON.parse(same.stdout) as { comparisons: { metricId: string; verdict: string }[] };
    expect(
      result.comparisons.filter((c) => c.metricId.startsWith('ttft_ms')).map((c) => c.verdict),
      seen,
    ).not.toContain('regression');
    // Exit 0, or 99 for the decode, or 5 when the candidate's own client was busy (a fresh clone's second run
    // of the same engine: TTFT 26.6 -> 54.1 ms, e2e 339 -> 669 ms, its schedule lag p99 29 ms): the change was
    // found and, rightly, not called.
    expect([0, 5, 99], `${seen}\n${same.stdout}`).toContain(same.code);
    if (same.code === 5)
      expect(
        readSummary(baseline).harness.client_bottleneck || readSummary(again).harness.client_bottleneck,
        `exit 5 with neither run's client busy: ${same.stdout}`,
      ).toBe(true);
  });

  it('two shards run at once against one engine, merged, equal one run: requests and token totals exactly', async () => {
    const server = await engine(smallModel, 4, 512);
    const profile = folder.writeProfile(
      'shards',
      `name: shards
target: { base_url: ${JSON.stringify(server.url)}, tokenizer: ${JSON.stringify(TINY_BPE_TOKENIZER)} }
scenarios:
  - name: s
    load: { mode: concurrency, concurrency: 4 }
    requests: 16
    prompt: { input_tokens: { dist: uniform, min: 8, max: 96 } }
    request: { stream: true, temperature: 0, max_completion_tokens: 24, logit_bias: ${JSON.stringify(wordBias)} }
    seed: 11
`,
    );
    const before = server.requests.length;
    const single = await run(profile, 'shards-single');
    const singleLogs = server.requests.slice(before);
    const shardDirs = [1, 2].map((i) => join(folder.dir, `shard-${i}`));
    const shardRuns = await Promise.all(
      [1, 2].map((i) =>
        runCliInProcess(['run', profile, '--shard', `${i}/2`, '--out', shardDirs[i - 1] as string, '--quiet'], {
          cwd: folder.dir,
        }),
      ),
    );
    expect(
      shardRuns.map((r) => r.code),
      shardRuns.map((r) => r.stderr).join('\n'),
    ).toEqual([0, 0]);
    const shardLogs = server.requests.slice(before + singleLogs.length);
    const mergedDir = join(folder.dir, 'shards-merged');
    const merged = await runCliInProcess(['merge', ...shardDirs, '--out', mergedDir, '--quiet'], { cwd: folder.dir });
    expect(merged.code, merged.stderr).toBe(0);

    // The engine saw the same prompts, each counted the same, from one run and from the two shards.
    const prompts = (logs: readonly EngineRequestLog[]) =>
      logs.map((log) => `${log.promptTokens} ${JSON.stringify(log.messages)}`).sort();
    expect(shardLogs).toHaveLength(16);
    expect(prompts(shardLogs)).toEqual(prompts(singleLogs));
    const one = readSummary(single).groups[0]!;
    const both = readSummary(mergedDir).groups[0]!;
    const [first, second] = shardDirs.map((d) => readSummary(d).groups[0]!);
    expect(both.key).toBe(one.key);
    expect(both.requests.ok).toBe(16);
    expect(both.requests.ok).toBe(one.requests.ok);
    expect([first?.requests.ok, second?.requests.ok]).toEqual([8, 8]);
    // Token totals: the client's counts are the engine's (target.tokenizer is its vocabulary), whole histograms
    // equal, and their sums are what the engine counted.
    const sum = (rows: Record<string, string>[], column: string) => rows.reduce((s, r) => s + Number(r[column]), 0);
    const engineInput = singleLogs.reduce((s, log) => s + log.promptTokens, 0);
    expect(both.metrics.input_tokens).toEqual(one.metrics.input_tokens);
    expect(both.metrics.output_tokens).toEqual(one.metrics.output_tokens);
    expect(sum(requestRows(mergedDir), 'input_tokens')).toBe(engineInput);
    expect(sum(requestRows(single), 'input_tokens')).toBe(engineInput);
    expect(sum(requestRows(mergedDir), 'output_tokens')).toBe(16 * 24);
    expect(shardLogs.reduce((s, log) => s + log.completionTokens, 0)).toBe(16 * 24);
    expect(both.metrics.ttft_ms?.count).toBe(16);
  });
});
