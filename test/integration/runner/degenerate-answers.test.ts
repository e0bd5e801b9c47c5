/**
 * No answer freezes the harness (issue 9, item 7). A server that sent one 8 MiB event of one repeated
 * character held the process at 100% of a core for over 10 minutes, deaf to SIGTERM: the tokenizer is
 * quadratic on long runs and the text was counted in one blocking call, twice. Against purpose-built
 * servers (test/helpers/degenerate-servers.ts) sending one 8 MiB event, a 1 MiB run over 1,024 events and
 * 100,000 tiny chunks, each run ends with the right counts (the server's usage, or estimated and flagged),
 * and an interrupt during each ends it with exit 130 and its results on disk: SIGTERM sent to the built
 * CLI during the 8 MiB event (the answer that froze the process), the run's interrupt signal (what the
 * CLI's SIGTERM handler aborts) in this process during the other two, whose event loop stays responsive
 * throughout (its delay is what would hold a signal back).
 * Slow on purpose (answers of megabytes, counted and interrupted: ~20 s of CPU): not in test:fast, whose
 * unit tests of bounded counting (test/unit/util/bounded-tokens.test.ts) cover the counting itself.
 * @module-tag slow
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli.js';
import {
  startDegenerateServer,
  degenerateAnswer,
  type DegenerateKind,
  type DegenerateServer,
} from '../../helpers/degenerate-servers.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-degenerate-');
const MAIN = resolve(import.meta.dirname, '..', '..', '..', 'dist', 'cli', 'main.js');
const KINDS: DegenerateKind[] = ['one-8mib-event', 'run-over-events', 'tiny-chunks'];
const GRACEFUL_STOP_MS = 1000;

function profileText(name: string, limit: string, gracefulStopMs: number): string {
  return `name: ${name}
scenarios:
  - name: s
    load: { mode: concurrency, concurrency: 2 }
    ${limit}
    graceful_stop: ${gracefulStopMs}ms
    request: { stream: true, max_completion_tokens: 16 }
    prompt: { input_tokens: 8 }
`;
}

function csvColumn(runDir: string, column: string): string[] {
  const [header, ...rows] = readFileSync(join(runDir, 'requests.csv'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(','));
  const index = header!.indexOf(column);
  expect(index).toBeGreaterThanOrEqual(0);
  return rows.map((row) => row[index] as string);
}

describe('answers a degenerate model sends', () => {
  for (const kind of KINDS) {
    for (const usage of [false, true]) {
      it(`${kind}, ${usage ? 'with usage' : 'no usage'}: right counts, ${usage ? 'from the server' : 'estimated and flagged'}, no frozen loop`, async () => {
        const server = await startDegenerateServer(kind, { usage });
        try {
          const out = join(folder.dir, `${kind}-${usage}`);
          const profile = folder.writeProfile(`${kind}-${usage}`, profileText(kind, 'requests: 2', 60_000));
          const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out], {
            cwd: folder.dir,
          });
          expect(result.code, result.stderr).toBe(0);
          const summary = readSummary(out);
          const group = summary.groups[0]!;
          const expected = degenerateAnswer(kind).tokens;
          expect(group.requests.ok).toBe(2);
          // The cuts of the bounded counter fall where they change nothing for these texts: exact in
          // requests.csv; the summary's histograms keep 3 significant digits.
          expect(csvColumn(out, 'output_tokens')).toEqual([String(expected), String(expected)]);
          expect(Math.abs(group.metrics.output_tokens!.p50 / expected - 1)).toBeLessThan(0.001);
          expect(group.tokens.estimated_requests).toBe(usage ? 0 : 2);
          expect(csvColumn(out, 'tokens_estimated')).toEqual(usage ? ['0', '0'] : ['1', '1']);
          // Parsing an 8 MiB event takes tens of ms; counting it used to take minutes in one call.
          expect(summary.harness.event_loop_delay_ms.max).toBeLessThan(2000);
        } finally {
          await server.close();
        }
      });
    }
  }
});

/** Resolves once `server` has finished `count` answers (the harness busy with them), or after 60 s. */
async function answered(server: DegenerateServer, count: number): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (server.answered() < count && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

describe('SIGTERM during a degenerate answer', () => {
  it('one-8mib-event: the built CLI exits 130 within the graceful stop, with requests.csv and summary.json', async () => {
    expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
    const kind: DegenerateKind = 'one-8mib-event';
    const server = await startDegenerateServer(kind, { usage: false });
    const out = join(folder.dir, `sigterm-${kind}`);
    const profile = folder.writeProfile(
      `sigterm-${kind}`,
      profileText(`sigterm-${kind}`, 'duration: 120s', GRACEFUL_STOP_MS),
    );
    const child = spawn(process.execPath, [MAIN, 'run', profile, '--base-url', server.url, '--out', out, '--quiet'], {
      cwd: folder.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.stdout.resume();
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      // Signal while the harness is busy with the answers: some finished (being counted), more arriving.
      await answered(server, 2);
      expect(server.answered(), stderr).toBeGreaterThanOrEqual(2);
      const signalledMs = performance.now();
      child.kill('SIGTERM');
      const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const code = await exited;
      clearTimeout(guard);
      const tookMs = performance.now() - signalledMs;
      expect(code, stderr).toBe(130);
      // The graceful stop plus a generous margin for a loaded machine (it used to be never).
      expect(tookMs).toBeLessThan(GRACEFUL_STOP_MS + 15_000);
      expect(existsSync(join(out, 'requests.csv'))).toBe(true);
      const summary = readSummary(out);
      expect(summary.complete).toBe(false);
      expect(summary.groups[0]!.requests.ok).toBeGreaterThanOrEqual(1);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await server.close();
    }
  });
});

describe('an interrupt during a degenerate answer', () => {
  for (const kind of ['run-over-events', 'tiny-chunks'] as const) {
    it(`${kind}: the run exits 130 within the graceful stop, with requests.csv and summary.json`, async () => {
      const server = await startDegenerateServer(kind, { usage: false });
      const out = join(folder.dir, `interrupt-${kind}`);
      const profile = folder.writeProfile(
        `interrupt-${kind}`,
        profileText(`interrupt-${kind}`, 'duration: 120s', GRACEFUL_STOP_MS),
      );
      const interrupt = new AbortController();
      try {
        const run = runCliInProcess(['run', profile, '--base-url', server.url, '--out', out, '--quiet'], {
          cwd: folder.dir,
          interrupt: interrupt.signal,
        });
        await answered(server, 2);
        expect(server.answered()).toBeGreaterThanOrEqual(2);
        const interruptedMs = performance.now();
        interrupt.abort();
        const result = await run;
        const tookMs = performance.now() - interruptedMs;
        expect(result.code, result.stderr).toBe(130);
        expect(tookMs).toBeLessThan(GRACEFUL_STOP_MS + 15_000);
        expect(existsSync(join(out, 'requests.csv'))).toBe(true);
        const summary = readSummary(out);
        expect(summary.complete).toBe(false);
        expect(summary.groups[0]!.requests.ok).toBeGreaterThanOrEqual(1);
        // What would hold a SIGTERM back in the built CLI: the loop never blocked while the answers streamed.
        expect(summary.harness.event_loop_delay_ms.max).toBeLessThan(2000);
      } finally {
        await server.close();
      }
    });
  }
});
