/**
 * `inferbench run` end to end, in-process, against the embedded emulator (a real child process; the first
 * test) or an emulator in this process (the others), on real sockets: the files of a run and their counts, exit codes (2 bad profile, 3 unreachable, 99
 * threshold, 130 interrupted), --json / --quiet, and that the API key never leaks.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';
import type { RunSummary } from '../../src/metrics/run-summary.js';

const folder = useRunFolder('inferbench-run-');
const emulators = useInProcessEmulators();
const { writeProfile } = folder;

/** requests.csv parsed naively (the test rows contain no quoted commas in the columns read here). */
function readRequests(runDir: string): Record<string, string>[] {
  const lines = readFileSync(join(runDir, 'requests.csv'), 'utf8').trim().split('\n');
  const header = (lines[0] as string).split(',');
  return lines.slice(1).map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(header.map((name, i) => [name, cells[i] ?? '']));
  });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const SHORT = `
name: short
scenarios:
  - name: steady
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 4 }
    requests: 24
    warmup_requests: 4
    request: { max_completion_tokens: 16 }
    prompt: { input_tokens: 32 }
`;

describe('inferbench run against the embedded emulator', () => {
  it('writes every output with consistent counts', async () => {
    const out = join(folder.dir, 'short-run');
    const result = await runCliInProcess(['run', writeProfile('short', SHORT), '--out', out], { cwd: folder.dir });
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    for (const file of ['summary.json', 'requests.csv', 'summary.csv', 'timeseries.csv'])
      expect(existsSync(join(out, file))).toBe(true);
    expect(result.stdout).toContain(`report: ${out}`);
    expect(result.stdout).toMatch(/ttft p50/);

    const summary = readSummary(out);
    expect(summary.complete).toBe(true);
    expect(summary.target.embedded_emulator).toBe(true);
    expect(summary.groups).toHaveLength(1);
    const group = summary.groups[0]!;
    expect(group.key).toBe('steady/small-fast-8b/-');
    const throttled = group.requests.errors['http_429'] ?? 0;
    expect(group.requests.ok + group.requests.failed + throttled).toBe(24);

    const rows = readRequests(out);
    const measured = rows.filter((row) => row['warmup'] === '0');
    const warmup = rows.filter((row) => row['warmup'] === '1');
    expect(warmup).toHaveLength(4);
    expect(measured).toHaveLength(group.requests.ok + group.requests.failed + throttled);
    const okRows = measured.filter((row) => row['error_class'] === '');
    expect(okRows).toHaveLength(group.requests.ok);
    const outputSum = okRows.reduce((sum, row) => sum + Number(row['output_tokens']), 0);
    const stats = group.metrics.output_tokens!;
    expect(stats.count).toBe(group.requests.ok);
    expect(stats.mean * stats.count).toBeCloseTo(outputSum, 3);
    // Every measured request's TTFT in the CSV lies inside the histogram's range.
    const ttfts = okRows.map((row) => Number(row['ttft_ms']));
    expect(Math.min(...ttfts)).toBeGreaterThanOrEqual(group.metrics.ttft_ms!.min * 0.99 - 0.01);
    expect(Math.max(...ttfts)).toBeLessThanOrEqual(group.metrics.ttft_ms!.max * 1.01 + 0.01);

    const timeseries = readFileSync(join(out, 'timeseries.csv'), 'utf8').trim().split('\n');
    expect(timeseries[0]).toMatch(/^group,second,started,completed/);
    expect(timeseries.length).toBeGreaterThan(1);
    const summaryCsv = readFileSync(join(out, 'summary.csv'), 'utf8');
    expect(summaryCsv).toMatch(/steady\/small-fast-8b\/-,steady,small-fast-8b,,ttft_ms,\d+/);
  });

  it('--json prints summary.json and nothing else on stdout; default out folder is reports/<run-id>', async () => {
    const result = await runCliInProcess(
      ['run', writeProfile('json', SHORT.replace('name: short', 'name: json-run')), '--json'],
      { cwd: folder.dir, target: await emulators.start() },
    );
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as RunSummary;
    expect(summary.run_id).toMatch(/^\d{8}T\d{6}Z-json-run$/);
    expect(readdirSync(join(folder.dir, 'reports'))).toContain(summary.run_id);
  });

  it('--quiet prints only the report path; --set before or after the profile overrides fields', async () => {
    const out = join(folder.dir, 'quiet');
    const result = await runCliInProcess(
      [
        'run',
        '--set',
        'scenarios[0].requests=6',
        writeProfile('quiet', SHORT),
        '--set',
        'scenarios[0].warmup_requests=0',
        '--out',
        out,
        '--quiet',
      ],
      { cwd: folder.dir, target: await emulators.start() },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`report: ${out}\n`);
    const summary = readSummary(out);
    expect(summary.groups[0]!.requests.ok).toBe(6);
    expect(readRequests(out)).toHaveLength(6);
  });

  it('exits 99 and names the threshold that failed', async () => {
    const profile = writeProfile('threshold', `${SHORT}\nthresholds: ["ttft_ms.p50 < 0.001", "error_rate < 0.5"]\n`);
    const out = join(folder.dir, 'threshold');
    const result = await runCliInProcess(['run', profile, '--out', out], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.code).toBe(99);
    expect(result.stderr).toContain('threshold failed: ttft_ms.p50 < 0.001');
    expect(result.stderr).not.toContain('threshold failed: error_rate');
    const summary = readSummary(out);
    expect(summary.thresholds.find((t) => t.expression === 'ttft_ms.p50 < 0.001')?.passed).toBe(false);
    expect(summary.thresholds.find((t) => t.expression === 'error_rate < 0.5')?.passed).toBe(true);
  });

  it('exits 130 with complete=false and all files when interrupted', { timeout: 120_000 }, async () => {
    const profile = writeProfile('long', SHORT.replace('requests: 24', 'duration: 60s'));
    const out = join(folder.dir, 'interrupted');
    const interrupt = new AbortController();
    // Ctrl-C once some measured requests are on disk (requests.csv streams as the run goes).
    const poll = setInterval(() => {
      const csv = existsSync(join(out, 'requests.csv')) ? readFileSync(join(out, 'requests.csv'), 'utf8') : '';
      if ((csv.match(/^\d+,steady\/small-fast-8b\/-,steady,small-fast-8b,,0,/gm) ?? []).length >= 10) {
        clearInterval(poll);
        interrupt.abort();
      }
    }, 50);
    const started = performance.now();
    const result = await runCliInProcess(['run', profile, '--out', out], {
      cwd: folder.dir,
      interrupt: interrupt.signal,
      target: await emulators.start(),
    });
    clearInterval(poll);
    expect(result.code, result.stderr).toBe(130);
    expect(interrupt.signal.aborted).toBe(true);
    expect(performance.now() - started).toBeLessThan(40_000);
    expect(result.stderr).toContain('interrupted');
    const summary = readSummary(out);
    expect(summary.complete).toBe(false);
    expect(summary.groups[0]!.requests.ok).toBeGreaterThan(0);
    for (const file of ['requests.csv', 'summary.csv', 'timeseries.csv'])
      expect(existsSync(join(out, file))).toBe(true);
    expect(readRequests(out).filter((row) => row['warmup'] === '0').length).toBe(
      summary.groups[0]!.requests.ok +
        summary.groups[0]!.requests.failed +
        (summary.groups[0]!.requests.errors['http_429'] ?? 0),
    );
  });
});

describe('inferbench run exit codes without a run', () => {
  it('exits 2 on a bad profile, naming the file, line and field', async () => {
    const profile = writeProfile(
      'bad',
      'name: bad\nscenarios:\n  - name: s\n    load: { mode: concurrency, concurrency: 2 }\n    requests: 3\n    colour: blue\n',
    );
    const result = await runCliInProcess(['run', profile], { cwd: folder.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${profile}:6`);
    expect(result.stderr).toContain('colour');
  });

  it('exits 2 on a --base-url that is not a URL', async () => {
    const result = await runCliInProcess(['run', writeProfile('badurl', SHORT), '--base-url', 'localhost:8080'], {
      cwd: folder.dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--base-url "localhost:8080" is not an http(s) URL');
  });

  it('exits 3 when the target is unreachable', async () => {
    const port = await closedPort();
    const result = await runCliInProcess(
      [
        'run',
        writeProfile('unreachable', SHORT),
        '--base-url',
        `http://127.0.0.1:${port}`,
        '--out',
        join(folder.dir, 'unreachable'),
      ],
      {
        cwd: folder.dir,
      },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/GET \/v1\/models|every request failed/);
  });
});
