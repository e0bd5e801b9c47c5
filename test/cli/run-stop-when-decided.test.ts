/**
 * `stop_when_decided` end to end on real sockets, against a server whose share of slow answers is known
 * (test/helpers/known-latency-server.ts: seeded, in arrival order): a clearly passing 60 s profile ends in
 * well under a third of its duration with exit 0, complete, `stopped.reason` decided and every verdict; a
 * clearly failing one (with `--stop-when-decided` instead of the key) stops early with exit 99; a
 * borderline one (1% slow answers against a p99) runs its 3 s to the end. `validate` says which thresholds
 * can stop a run early. With --workers the coordinator decides on the merged numbers. Timing bounds are
 * generous on purpose (a shared machine).
 * Slow: each run sends the few hundred requests a p99 needs to decide, in real time (about 13 s of CPU in
 * all); the inner loop has the same decisions in virtual time (test/unit/runner/decided-stop-virtual-time.test.ts).
 * @module-tag slow
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import {
  KNOWN_LATENCY_MODEL,
  type KnownLatencyServer,
  startKnownLatencyServer,
} from '../helpers/known-latency-server.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-stop-decided-');
let server: KnownLatencyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function profile(name: string, { load, duration, extra }: { load: string; duration: string; extra: string }): string {
  return folder.writeProfile(
    name,
    `name: ${name}
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
thresholds: ["ttft_ms.p99 < 300", "error_rate < 0.01"]
${extra}scenarios:
  - name: ci
    models: [${KNOWN_LATENCY_MODEL}]
    load: ${load}
    duration: ${duration}
    graceful_stop: 5s
    request: { max_completion_tokens: 4 }
    prompt: { input_tokens: 8 }
`,
  );
}

const CLOSED = '{ mode: concurrency, concurrency: 2 }';

describe('inferbench run with stop_when_decided', () => {
  it('a clearly passing 60 s profile ends in well under 20 s: exit 0, complete, stopped decided', {
    timeout: 60_000,
  }, async () => {
    server = await startKnownLatencyServer({ fastMs: 5, slowMs: 600, slowShare: 0, seed: 1 });
    const path = profile('pass', { load: CLOSED, duration: '60s', extra: 'stop_when_decided: true\n' });
    const out = join(folder.dir, 'pass');
    const started = performance.now();
    const junit = join(folder.dir, 'pass.xml');
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out, '--junit', junit], {
      cwd: folder.dir,
    });
    const elapsedMs = performance.now() - started;
    expect(result.code, result.stderr).toBe(0);
    expect(elapsedMs).toBeLessThan(20_000);
    expect(result.stderr).toContain('stop_when_decided: every threshold can stop the run early');
    expect(result.stderr).toMatch(/stopped at [\d.]+ s: every threshold was decided by its sequential test/);
    expect(result.stderr).toMatch(
      /ttft_ms\.p99 < 300 \[ci\/known-latency-model\/-\]: PASS at [\d.]+ s, \d+ of \d+ exceeded/,
    );
    const summary = readSummary(out);
    expect(summary.complete).toBe(true);
    expect(summary.stopped).toMatchObject({ reason: 'decided', alpha: 0.05, beta: 0.05, indifference: 0.5 });
    const stopped = summary.stopped as { at_s: number; thresholds: { verdict: string; requests: number }[] };
    expect(stopped.at_s).toBeLessThan(20);
    expect(stopped.thresholds.map((t) => t.verdict)).toEqual(['pass', 'pass']);
    for (const t of stopped.thresholds) expect(t.requests).toBeGreaterThanOrEqual(292);
    expect(summary.thresholds.every((t) => t.passed)).toBe(true);
    // A decided stop is no failure for CI dashboards: no "ran to its end" testcase failing.
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('ttft_ms.p99 &lt; 300');
    expect(xml).not.toContain('<failure');
  });

  it('a clearly failing one (--stop-when-decided) stops early: exit 99, the failure judged on all the data', {
    timeout: 60_000,
  }, async () => {
    server = await startKnownLatencyServer({ fastMs: 5, slowMs: 600, slowShare: 0.2, seed: 2 });
    // An open loop: the slow answers do not slow the arrivals, and error_rate's PASS (292 requests) comes soon too.
    const path = profile('fail', { load: '{ mode: rate, rate: 150, arrival: constant }', duration: '60s', extra: '' });
    const out = join(folder.dir, 'fail');
    const started = performance.now();
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out, '--stop-when-decided'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(99);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result.stderr).toContain('threshold failed: ttft_ms.p99 < 300');
    const summary = readSummary(out);
    expect(summary.stopped?.reason).toBe('decided');
    const stopped = summary.stopped as { at_s: number; thresholds: { threshold: string; verdict: string }[] };
    expect(stopped.at_s).toBeLessThan(20);
    expect(stopped.thresholds.map((t) => [t.threshold, t.verdict])).toEqual([
      ['ttft_ms.p99 < 300', 'fail'],
      ['error_rate < 0.01', 'pass'],
    ]);
    expect(summary.thresholds.find((t) => t.expression === 'ttft_ms.p99 < 300')?.passed).toBe(false);
  });

  it('a borderline one (1% slow answers against a p99) is not decided in 3 s: it runs to its end', {
    timeout: 60_000,
  }, async () => {
    server = await startKnownLatencyServer({ fastMs: 5, slowMs: 600, slowShare: 0.01, seed: 3 });
    const path = profile('borderline', {
      load: '{ mode: rate, rate: 60, arrival: constant }',
      duration: '3s',
      extra: 'stop_when_decided: true\n',
    });
    const out = join(folder.dir, 'borderline');
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    expect([0, 99], result.stderr).toContain(result.code);
    const summary = readSummary(out);
    expect(summary.stopped).toBeNull();
    expect(summary.complete).toBe(true);
    const group = summary.groups[0]!;
    // Every arrival of the 3 s was sent: 60/s x 3 s.
    expect(group.requests.ok).toBe(180);
  });
});

describe('inferbench run --workers with stop_when_decided', () => {
  it('the coordinator decides on the merged numbers and stops every worker: exit 0, complete', {
    timeout: 60_000,
  }, async () => {
    server = await startKnownLatencyServer({ fastMs: 5, slowMs: 600, slowShare: 0, seed: 4 });
    const path = profile('pass-workers', { load: CLOSED, duration: '60s', extra: 'stop_when_decided: true\n' });
    const out = join(folder.dir, 'pass-workers');
    const started = performance.now();
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out, '--workers', '2'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(performance.now() - started).toBeLessThan(20_000);
    const summary = readSummary(out);
    expect(summary.workers).toBe(2);
    expect(summary.complete).toBe(true);
    expect(summary.stopped?.reason).toBe('decided');
    const stopped = summary.stopped as { thresholds: { verdict: string; requests: number }[] };
    expect(stopped.thresholds.map((t) => t.verdict)).toEqual(['pass', 'pass']);
    // The tests read the merged numbers: every request of both workers up to the decision.
    expect(summary.groups[0]!.requests.ok).toBeGreaterThanOrEqual(stopped.thresholds[0]!.requests);
  });
});

describe('inferbench validate with stop_when_decided', () => {
  it('names the thresholds that can stop a run early and those that keep it going', async () => {
    const path = folder.writeProfile(
      'mixed',
      `name: mixed
stop_when_decided: true
thresholds: ["ttft_ms.p99 < 300", "ttft_ms.mean < 20", "output_tokens_per_s > 10"]
scenarios:
  - name: ci
    models: [m]
    load: { mode: rate, rate: 5 }
    duration: 5s
    prompt: { input_tokens: 8 }
`,
    );
    const result = await runCliInProcess(['validate', path], { cwd: folder.dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'stop_when_decided: the run goes to its end (it stops early only when a sequential test can decide every threshold, on a steady load):\n' +
        '  ttft_ms.p99 < 300: can stop early\n' +
        '  ttft_ms.mean < 20: cannot stop early (mean is no percentile (a sequential test needs p50 to p99.9))\n' +
        '  output_tokens_per_s > 10: cannot stop early (">" is a lower bound: no exceedance fraction to test)\n',
    );
  });
});
