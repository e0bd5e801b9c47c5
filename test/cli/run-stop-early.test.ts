/**
 * `inferbench run` stopping early, end to end on real sockets: a threshold with abort_on_fail stops a
 * 60 s run within seconds of the breach once its grace period has passed (exit 99), max_error_rate stops a
 * run against a server that answers only 500s (exit 3, error classes named), both write every file with
 * complete: false and summary.json `stopped`; a run that breaches nothing runs to its end.
 * Timing bounds are generous on purpose (a shared CI machine): "well under the scenario's 60 s".
 * Slow on purpose (breaches that take seconds of real time to show): not in test:fast, where the runner's
 * stops are tested in virtual time (test/unit/runner/run-virtual-time.test.ts, decided-stop-virtual-time).
 * @module-tag slow
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import {
  chunk,
  playScript,
  sendJson,
  sseData,
  startTestServer,
  TEST_USAGE,
  type TestServer,
} from '../helpers/fault-servers.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-stop-early-');
const emulators = useInProcessEmulators();

const MODELS = { object: 'list', data: [{ id: 'test-model', object: 'model', created: 0, owned_by: 't' }] };

/** The three-token answer; the first text `ttftMs` after the headers. */
function answer(res: Parameters<typeof playScript>[0], ttftMs: number): void {
  playScript(res, [
    { write: sseData(chunk({ role: 'assistant', content: '' })) },
    { afterMs: ttftMs, write: sseData(chunk({ content: 'Hello' })) },
    { write: sseData(chunk({ content: ' there' })) },
    { write: sseData(chunk({}, 'stop', { usage: TEST_USAGE })) },
    { end: true },
  ]);
}

/** Fast for its first `fastRequests` chat requests, then a TTFT of 400 ms: the breach. */
function slowsDownAfter(fastRequests: number): Promise<TestServer> {
  let chats = 0;
  return startTestServer((req, res) => {
    if (req.method === 'GET') return sendJson(res, 200, MODELS);
    answer(res, chats++ < fastRequests ? 5 : 400);
  });
}

function measuredRows(runDir: string): string[] {
  const lines = readFileSync(join(runDir, 'requests.csv'), 'utf8').trim().split('\n');
  const header = (lines[0] as string).split(',');
  const warmup = header.indexOf('warmup');
  return lines.slice(1).filter((line) => line.split(',')[warmup] === '0');
}

/** Counted with the tiny tokenizer: the subject is stopping, not counting (o200k loads in every worker thread). */
function profile(name: string, extra: string): string {
  return folder.writeProfile(
    name,
    `name: ${name}
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
scenarios:
  - name: steady
    models: [test-model]
    load: { mode: concurrency, concurrency: 4 }
    duration: 60s
    warmup: 1s
    graceful_stop: 5s
    request: { max_completion_tokens: 16 }
    prompt: { input_tokens: 16 }
${extra}`,
  );
}

describe('inferbench run stops early', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await slowsDownAfter(40);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('on an abort_on_fail threshold after its grace period: exit 99, complete false, stopped', {
    timeout: 90_000,
  }, async () => {
    const path = profile(
      'abort',
      `thresholds:
  - "error_rate < 0.5"
  - { threshold: "ttft_ms.p99 < 200", abort_on_fail: true, delay_abort_eval: 2s }
`,
    );
    const out = join(folder.dir, 'abort');
    const started = performance.now();
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    const elapsedMs = performance.now() - started;
    expect(result.code, result.stderr).toBe(99);
    expect(elapsedMs).toBeLessThan(25_000); // of a 60 s scenario
    expect(result.stderr).toMatch(
      /stopped early at [\d.]+ s: threshold ttft_ms\.p99 < 200 failed on steady\/test-model\/- \(actual [\d.]+\) and has abort_on_fail/,
    );
    expect(result.stderr).toContain('threshold failed: ttft_ms.p99 < 200');
    const summary = readSummary(out);
    expect(summary.complete).toBe(false);
    expect(summary.stopped).toMatchObject({
      reason: 'abort_on_fail',
      threshold: 'ttft_ms.p99 < 200',
      group: 'steady/test-model/-',
    });
    const stopped = summary.stopped as { at_s: number; actual: number };
    expect(stopped.actual).toBeGreaterThan(200);
    // Never before the 1 s warmup and the 2 s grace period.
    expect(stopped.at_s).toBeGreaterThanOrEqual(2.9);
    const group = summary.groups[0]!;
    expect(group.requests.ok).toBeGreaterThan(0);
    expect(summary.thresholds.find((t) => t.expression === 'ttft_ms.p99 < 200')?.passed).toBe(false);
    for (const file of ['summary.csv', 'timeseries.csv']) expect(existsSync(join(out, file))).toBe(true);
    expect(measuredRows(out)).toHaveLength(
      group.requests.ok + group.requests.failed + (group.requests.errors['http_429'] ?? 0),
    );
  });

  it('on max_error_rate against a server answering only 500s: exit 3 with the error classes', {
    timeout: 90_000,
  }, async () => {
    const failing = await startTestServer((req, res) => {
      if (req.method === 'GET') return sendJson(res, 200, MODELS);
      sendJson(res, 500, { message: 'the server is on fire', type: 'internal_error', param: null, code: null });
    });
    try {
      const path = profile('errors', '    max_error_rate: { rate: 50%, min_requests: 20 }\n');
      const out = join(folder.dir, 'errors');
      const started = performance.now();
      const result = await runCliInProcess(['run', path, '--base-url', failing.url, '--out', out], {
        cwd: folder.dir,
      });
      expect(result.code, result.stderr).toBe(3);
      expect(performance.now() - started).toBeLessThan(25_000);
      expect(result.stderr).toMatch(
        /stopped early at [\d.]+ s: steady\/test-model\/- error rate 100% of \d+ requests exceeds max_error_rate 50% \(http_5xx \d+\)/,
      );
      const summary = readSummary(out);
      expect(summary.complete).toBe(false);
      expect(summary.stopped).toMatchObject({ reason: 'max_error_rate', group: 'steady/test-model/-', error_rate: 1 });
      const stopped = summary.stopped as { requests: number; errors: Record<string, number> };
      expect(stopped.requests).toBeGreaterThanOrEqual(20);
      expect(Object.keys(stopped.errors)).toEqual(['http_5xx']);
      expect(measuredRows(out).length).toBe(summary.groups[0]!.requests.failed);
    } finally {
      await failing.close();
    }
  });
});

describe('inferbench run --workers stops early', () => {
  it('stops every worker on an abort_on_fail threshold judged on the merged numbers: exit 99', {
    timeout: 90_000,
  }, async () => {
    const slowing = await slowsDownAfter(40);
    try {
      const path = profile(
        'abort-workers',
        `thresholds:
  - { threshold: "ttft_ms.p99 < 200", abort_on_fail: true, delay_abort_eval: 2s }
`,
      );
      const out = join(folder.dir, 'abort-workers');
      const started = performance.now();
      const result = await runCliInProcess(['run', path, '--base-url', slowing.url, '--out', out, '--workers', '2'], {
        cwd: folder.dir,
      });
      expect(result.code, result.stderr).toBe(99);
      expect(performance.now() - started).toBeLessThan(30_000); // of a 60 s scenario
      const summary = readSummary(out);
      expect(summary.workers).toBe(2);
      expect(summary.complete).toBe(false);
      expect(summary.stopped).toMatchObject({ reason: 'abort_on_fail', threshold: 'ttft_ms.p99 < 200' });
      expect(summary.harness.workers?.map((w) => w.complete)).toEqual([false, false]);
      const group = summary.groups[0]!;
      expect(measuredRows(out)).toHaveLength(group.requests.ok + group.requests.failed);
    } finally {
      await slowing.close();
    }
  });
});

describe('inferbench run that breaches nothing', () => {
  it('runs to its end against the emulator: exit 0, complete, stopped null', { timeout: 90_000 }, async () => {
    const path = folder.writeProfile(
      'calm',
      `name: calm
scenarios:
  - name: steady
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 2 }
    duration: 2s
    request: { max_completion_tokens: 8 }
    prompt: { input_tokens: 16 }
    max_error_rate: 50%
thresholds:
  - { threshold: "ttft_ms.p99 < 60000", abort_on_fail: true }
  - { threshold: "error_rate < 0.5", abort_on_fail: true, delay_abort_eval: 1s }
`,
    );
    const out = join(folder.dir, 'calm');
    const target = await emulators.start();
    const started = performance.now();
    const result = await runCliInProcess(['run', path, '--out', out], { cwd: folder.dir, target });
    expect(result.code, result.stderr).toBe(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2000);
    const summary = readSummary(out);
    expect(summary.complete).toBe(true);
    expect(summary.stopped).toBeNull();
    expect(summary.thresholds.every((t) => t.passed)).toBe(true);
  });
});
