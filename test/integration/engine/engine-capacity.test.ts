/**
 * The capacity knee on a real engine (issue 24): `inferbench capacity` searches streams (a closed loop)
 * on llama.cpp serving a generated tiny llama (4.5M parameters) with 2 sequences, the engine in a process
 * of its own (test/helpers/engine/engine-process.ts: in the test's process its thread would count as the
 * harness's CPU and spoil every step). The SLO is `ttft_ms.p75 < 150ms` (a p75: a pass needs about 10
 * clean requests, not a p90's 27); every answer is 200 whole-word tokens (a logit bias), 0.5 to 1.4 s of
 * decode on 2 busy sequences (0.3 to 0.4 s on an idle machine), against a first token in 10 to 80 ms (16
 * prompt tokens).
 *
 * The truth is the engine's: up to 2 streams every request gets a sequence at once, and TTFT is the
 * prefill; with a third stream one request is always waiting for a sequence, and half of them wait a
 * whole answer, longer than the limit. So the knee is 2 streams, whatever the loaded machine leaves the engine: a slower engine
 * has a slower prefill and a longer wait alike, and the limit sits between them with a margin of about 3
 * either way (measured at a load average of 7 to 14 on 2 cores). A brute-force sweep, one closed-loop run
 * at each of 1 to 3 streams judged as a step is (at most 25% of TTFTs over the limit), places the knee at 2
 * with the engine's own stamps saying why (no wait for a sequence up to 2 streams; at 3, half the requests
 * wait a whole answer). Its passes at 1 and 2 streams are checked when the run's harness was healthy: a
 * burst of other work on the loaded machine once put half of a 5-second run's first tokens at 2 streams
 * over the limit (load average 10), and the harness then says it was starved. The search must agree
 * in every step it decides (at most 2 streams pass, more fail), its engine /metrics (llamacpp preset)
 * showing the sequences busy and the requests waiting; when it resolves, its answer is 2 exactly (2
 * passes, 3 fails, `server_at_knee` "waiting 0 -> 1").
 *
 * What it cannot promise on a loaded machine: that the search resolves. A step in which the harness's own
 * event-loop delay or schedule lag p99 was over 10 ms is INCONCLUSIVE (run again, 3 times at most, then
 * the search ends so), and at a load average of 11 to 14 on the 2 cores every step was; the search is also
 * interrupted at 30 s to keep the file under a minute. Then the test checks that no spoiled step decided
 * and no capacity other than 2 was named. In `npm test` the timing files run alone, so an otherwise idle
 * machine resolves it: a step at 2 streams decided PASS in 6 to 7 s (10 to 12 requests) every time, only
 * the harness's self-check spoiled it at a load average of 5 to 14; alone on the machine (fresh clones'
 * `npm test`, 2026-11-28) it resolved to 2 (2 pass, 4 fail, 3 fail) and the file took 27 s. Loaded, it took
 * 56 to 75 s (the search cut at 30 s), 22 to 35 s of it the sweep (then of 1 to 4 streams).
 *
 * A rate search (req/s) is left to `npm run bench engine`: its truth is the CPU the engine gets, which the
 * loaded machine moved by 2.5x within minutes (docs/benchmarks.md), so no tolerance that cannot flake
 * would prove anything. The engine child runs from its build (`npm run build:bench`, which `npm test`
 * runs first).
 * @module-tag timing
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapacitySummary } from '../../../src/metrics/capacity-summary.js';
import { parseCsvRecords } from '../../../src/util/csv-records.js';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { type EngineProcess, startEngineProcess } from '../../helpers/engine/engine-process.js';
import { TINY_BPE_TOKENIZER, wholeWordTokens, writeTinyLlama } from '../../helpers/engine/tiny-llama-gguf.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

/** The search's outcome is written here (test-artifacts/engine-capacity.json). */
const ARTIFACTS = join(import.meta.dirname, '..', '..', '..', 'test-artifacts');
const SEQUENCES = 2;
/** The SLO: TTFT p75 under this (at most 25% of the requests over it). */
const LIMIT_MS = 150;
const ALLOWED_OVER = 0.25;
const OUTPUT_TOKENS = 200;
/** Measured requests of the sweep's runs at 1, 2 and 3 streams (each after one warmup request a stream). */
const SWEEP_REQUESTS = [3, 8, 10];
/** The search is interrupted here (Ctrl-C: the steps so far are written), to keep the file under a minute. */
const SEARCH_DEADLINE_MS = 30_000;

const folder = useRunFolder('inferbench-engine-capacity-');
let modelDir: string;
let engine: EngineProcess;
let request: string;

beforeAll(async () => {
  modelDir = mkdtempSync(join(tmpdir(), 'inferbench-gguf-capacity-'));
  const model = writeTinyLlama(modelDir, { embedding: 256, layers: 4, seed: 7 });
  engine = await startEngineProcess({ modelPath: model.path, sequences: SEQUENCES, contextSize: 512 });
  const hf = await loadHfTokenizer(TINY_BPE_TOKENIZER);
  const bias = Object.fromEntries(wholeWordTokens(hf.encode).map((id) => [String(id), 100]));
  request = `{ stream: true, temperature: 0, max_completion_tokens: ${OUTPUT_TOKENS}, logit_bias: ${JSON.stringify(bias)} }`;
}, 60_000);

afterAll(async () => {
  await engine?.close();
  rmSync(modelDir, { recursive: true, force: true });
});

function target(): string {
  return `target:
  base_url: ${JSON.stringify(engine.url)}
  tokenizer: ${JSON.stringify(TINY_BPE_TOKENIZER)}
  server_metrics: [{ url: ${JSON.stringify(`${engine.url}/metrics`)}, preset: llamacpp, interval: 100ms }]`;
}

describe('the capacity knee of llama.cpp with 2 sequences', () => {
  it('a brute-force sweep, one closed-loop run at each of 1 to 3 streams, puts the knee at 2: the engine stamps show why', async () => {
    // The brute-force sweep: one closed-loop run at each of 1 to 3 streams, the same requests (beyond 3
    // the waits only grow; the search's step at 4 streams shows it).
    const streams = [1, 2, 3];
    const sweep = folder.writeProfile(
      'sweep',
      `name: engine-sweep
${target()}
scenarios:
${streams
  .map(
    (n) => `  - name: c${n}
    load: { mode: concurrency, concurrency: ${n} }
    warmup_requests: ${n}
    requests: ${SWEEP_REQUESTS[n - 1]}
    prompt: { input_tokens: 16 }
    request: ${request}
`,
  )
  .join('')}`,
    );
    const out = join(folder.dir, 'sweep');
    const before = (await engine.requests()).length;
    const swept = await runCliInProcess(['run', sweep, '--out', out, '--quiet'], { cwd: folder.dir });
    expect(swept.code, swept.stderr).toBe(0);
    // Each run judged as the search judges a step: TTFT p75 holds while at most 25% of the requests are
    // over the limit.
    const rows = parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8')).records;
    const measured = (n: number) => rows.filter((r) => r.scenario === `c${n}` && r.warmup !== '1');
    const shares = streams.map((n) => {
      const ttfts = measured(n).map((r) => Number(r.ttft_ms));
      expect(ttfts.every((t) => t > 0)).toBe(true);
      return ttfts.filter((t) => t > LIMIT_MS).length / ttfts.length;
    });
    // Why, in the engine's stamps: the wait for a sequence (arrival -> sequence given) of each request.
    const logs = new Map((await engine.requests()).slice(before).map((log) => [log.requestId, log]));
    const firstTokens = (n: number) =>
      measured(n).map((r) => {
        const log = logs.get(r.request_id as string);
        return `${Math.round(Number(r.ttft_ms))}/${log === undefined ? '-' : Math.round((log.tokenTimesMs[0] ?? Number.NaN) - log.startedMs)}`;
      });
    // Beyond the knee the SLO fails whatever the machine does (the waits are whole answers). Up to it the
    // harness's TTFTs hold when nothing starved the processes: a burst of other work on the loaded machine
    // (seconds at a time) can put half of a 5-second run's first tokens over the limit, at 2 streams as at
    // 1, and the harness then says so (its event-loop delay or schedule lag p99 over 10 ms), as it makes a
    // search's step INCONCLUSIVE. The engine's stamps below hold either way.
    const told = `share of TTFTs over ${LIMIT_MS} ms at 1-3 streams: ${shares.map((share) => share.toFixed(2)).join(', ')}; TTFT harness/engine (ms) at 2 streams: ${firstTokens(2)}, at 3: ${firstTokens(3)}`;
    expect(
      shares.slice(2).every((share) => share > ALLOWED_OVER),
      told,
    ).toBe(true);
    if (!readSummary(out).harness.client_bottleneck)
      expect(
        shares.slice(0, 2).every((share) => share <= ALLOWED_OVER),
        told,
      ).toBe(true);
    const waits = (n: number) =>
      measured(n).map((r) => {
        const log = logs.get(r.request_id as string);
        if (log === undefined) throw new Error(`the engine saw no request ${r.request_id}`);
        return log.startedMs - log.arrivedMs;
      });
    // The premise: an answer on 2 busy sequences takes well over the limit (the engine's own time), so a
    // request that waits for one breaks the SLO whatever its prefill (1.5x: on an idle machine an answer
    // took 300 to 400 ms, loaded 0.5 to 1.4 s).
    const answerTimes = (n: number) =>
      measured(n).map((r) => {
        const log = logs.get(r.request_id as string);
        return log === undefined ? Number.NaN : log.endedMs - log.startedMs;
      });
    const answers = answerTimes(2);
    expect(Math.min(...answers), `answers at 2 streams: ${answers.map(Math.round)} ms`).toBeGreaterThan(1.5 * LIMIT_MS);
    // Up to 2 streams no request waits for a sequence.
    for (const n of [1, 2]) expect(Math.max(...waits(n)), `waits at ${n} streams`).toBeLessThan(LIMIT_MS / 4);
    // At 3 streams one request is always waiting for the next answer to end, so the mean wait is the time
    // between two ends (half an answer). The two sequences start together and so end together: of the
    // two requests that then get them, one waited a whole answer and one nothing (0, 1096, 0, 1048, 0,
    // ... ms measured loaded; 0, 0, 403, 0, 308, ... idle): half the requests wait over the limit (a third
    // allowed for the run's edges), and the mean wait is near half of the engine's answer (0.3 allowed for
    // the edges: the first two requests wait nothing).
    const three = waits(3);
    const answersAtThree = answerTimes(3).sort((a, b) => a - b);
    const medianAnswer = answersAtThree[Math.floor(answersAtThree.length / 2)] as number;
    const said = `waits at 3 streams: ${three.map(Math.round)} ms; median answer ${Math.round(medianAnswer)} ms`;
    expect(three.filter((w) => w > LIMIT_MS).length, said).toBeGreaterThanOrEqual(three.length / 3);
    expect(three.reduce((a, b) => a + b, 0) / three.length, said).toBeGreaterThan(0.3 * medianAnswer);
  }, 60_000);

  it('inferbench capacity finds 2 streams, and the engine /metrics shows the knee; a spoiled step never decides', async () => {
    const profile = folder.writeProfile(
      'knee',
      `name: engine-knee
${target()}
scenarios:
  - name: knee
    load: { mode: concurrency, concurrency: 1 }
    duration: 10s
    prompt: { input_tokens: 16 }
    request: ${request}
capacity:
  slo: { ttft_ms.p75: ${LIMIT_MS}ms }
  start: ${SEQUENCES}
  max_step_duration: 20s
  step_warmup: 1s
`,
    );
    const dir = join(folder.dir, 'knee');
    const result = await runCliInProcess(['capacity', profile, '--out', dir, '--steps'], {
      cwd: folder.dir,
      interrupt: AbortSignal.timeout(SEARCH_DEADLINE_MS),
    });
    const said = `${result.stdout}\n${result.stderr}`;
    expect([0, 130], said).toContain(result.code);
    const group = (readSummary(dir).capacity as CapacitySummary).groups[0];
    if (group === undefined) throw new Error('no capacity group');
    // Every step the search decided is the truth: at most 2 streams pass, more fail. A step the loaded
    // machine spoiled (the harness's own event-loop delay or schedule lag p99 over 10 ms) is INCONCLUSIVE
    // and decides nothing; the engine's gauges show the knee in every decided step.
    const decided = group.steps.filter((s) => s.outcome !== 'inconclusive');
    for (const step of decided) {
      expect(`${step.load} ${step.outcome}`, said).toBe(`${step.load} ${step.load <= SEQUENCES ? 'pass' : 'fail'}`);
      expect(step.server?.concepts.running, said).toMatchObject({ kind: 'gauge', max: Math.min(step.load, SEQUENCES) });
      expect(step.server?.concepts.waiting, said).toMatchObject({
        kind: 'gauge',
        max: Math.max(0, step.load - SEQUENCES),
      });
    }
    for (const step of group.steps.filter((s) => s.outcome === 'inconclusive'))
      expect(step.reason, said).toMatch(/^the harness was its own bottleneck|^interrupted/);
    // What the search ended with, for whoever reads CI's artifacts: whether this machine let it resolve.
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(
      join(ARTIFACTS, 'engine-capacity.json'),
      `${JSON.stringify({ end_reason: group.end_reason, capacity: group.capacity, steps: group.steps.map((s) => ({ load: s.load, outcome: s.outcome, reason: s.reason })) }, null, 2)}\n`,
    );
    if (group.end_reason.startsWith('resolved')) {
      // The knee: 2 passes, 3 fails, and the capacity is the engine's 2 sequences.
      expect({ capacity: group.capacity, last_pass: group.last_pass, first_fail: group.first_fail }, said).toEqual({
        capacity: SEQUENCES,
        last_pass: SEQUENCES,
        first_fail: SEQUENCES + 1,
      });
      expect(group.server_at_knee, said).toMatch(/waiting 0 -> 1/);
    } else {
      // The machine spoiled the search (or its deadline came first): it says so and names no capacity.
      expect(group.end_reason, said).toMatch(/^inconclusive|^interrupted/);
      expect(group.capacity === null || group.capacity === SEQUENCES, said).toBe(true);
    }
  }, 60_000);
});
