/**
 * `npm run bench soak --duration 8s --quick` (the built dist-bench/bench/main.js, as `npm test`'s pretest builds
 * it) runs the real `inferbench run` against the embedded emulator, prints the verdict table (one row per
 * series) and the curve, and writes bench-results/soak.json with every sample. Never a timing nor the
 * verdict itself: whether memory stays flat over minutes belongs to the 10-minute benchmark, not to an
 * 8-second test on a shared machine (samples are taken 20 times a run whatever its length, so 8 s gives the
 * verdict as many samples per third as 12 s did). A bad --duration is refused with exit 2 before anything
 * runs; that refusal is asked for while the soak runs, so the file waits for one child, not two in a row.
 * @module-tag tool
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = resolve(import.meta.dirname, '..', '..', '..', 'dist-bench', 'bench', 'main.js');
const SERIES = ['rss_mb', 'heap_used_mb', 'fds', 'eld_p99_ms'];
const DURATION_S = 8;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBench(args: readonly string[], cwd: string): Promise<Outcome> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--max-semi-space-size=4', MAIN, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      // npm's own flags must not leak in from an `npm test` run.
      env: { PATH: process.env['PATH'] },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', fail);
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

interface Sample {
  t_s: number;
  rss_mb: number;
  heap_used_mb: number;
  fds: number | null;
  eld_p99_ms: number;
}

interface SoakJson {
  benchmark: string;
  result: {
    settings: { durationMs: number; warmupMs: number; sampleIntervalMs: number; rate_per_s: number };
    verdict: {
      run_window_s: { start: number; end: number };
      samples_per_third: number;
      series: { series: string; first_third_median: number; last_third_median: number; flat: boolean }[];
      flat: boolean;
    };
    run: { groups: { requests: { ok: number; failed: number; dropped: number } }[] };
    curve: Record<string, unknown>[];
    samples: Sample[];
  };
}

let dir: string;
let soak: Outcome;
let bad: Outcome;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferbench-soak-bench-'));
  const badDir = join(dir, 'bad');
  mkdirSync(badDir);
  [soak, bad] = await Promise.all([
    runBench(['soak', '--duration', `${DURATION_S}s`, '--quick'], dir),
    runBench(['soak', '--duration', 'ten minutes'], badDir),
  ]);
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm run bench soak --duration 8s', () => {
  it('exits 0 and prints the verdict table with a row per series and the curve', () => {
    expect(soak.code, soak.stderr.slice(-2000)).toBe(0);
    const header = soak.stdout.split('\n').find((line) => line.includes('series') && line.includes('flat'));
    for (const column of ['first third (median)', 'last third (median)', 'change', 'flat']) {
      expect(header).toContain(column);
    }
    for (const series of SERIES) expect(soak.stdout).toMatch(new RegExp(`^\\s*${series}\\s`, 'm'));
    expect(soak.stdout).toMatch(/rss_mb\s+heap_used_mb\s+heap_min_mb\s+fds_max\s+eld_p99_ms_max/);
    expect(soak.stdout).toMatch(/^(PASS|FAIL): /m);
  });

  it('writes bench-results/soak.json with samples taken through the run', () => {
    const written = JSON.parse(readFileSync(join(dir, 'bench-results', 'soak.json'), 'utf8')) as SoakJson;
    const { settings, verdict, run, samples, curve } = written.result;
    expect(written.benchmark).toBe('soak');
    expect(settings.durationMs).toBe(DURATION_S * 1000);
    // The run sent its load: every request answered by the emulator, none dropped.
    const requests = run.groups[0]?.requests;
    expect(requests?.ok).toBeGreaterThan(settings.rate_per_s * (DURATION_S / 2));
    expect(requests?.failed).toBe(0);
    expect(requests?.dropped).toBe(0);
    // Samples cover the run's window, in time order, at the planned interval (a loaded machine may add a few).
    const window = verdict.run_window_s;
    expect(window.end - window.start).toBeGreaterThanOrEqual(DURATION_S * 0.95);
    const inRun = samples.filter((s) => s.t_s >= window.start && s.t_s <= window.end);
    expect(inRun.length).toBeGreaterThanOrEqual(Math.floor((DURATION_S * 1000) / settings.sampleIntervalMs) - 2);
    for (let i = 1; i < samples.length; i++) expect(samples[i]?.t_s).toBeGreaterThan(samples[i - 1]?.t_s as number);
    for (const sample of inRun) {
      // A harness that has loaded its tokenizer and holds open sockets: RSS above the heap, fds beyond stdio.
      expect(sample.heap_used_mb).toBeGreaterThan(1);
      expect(sample.rss_mb).toBeGreaterThan(sample.heap_used_mb);
      if (process.platform === 'linux') expect(sample.fds).toBeGreaterThan(3);
      expect(sample.eld_p99_ms).toBeGreaterThanOrEqual(0);
    }
    expect(verdict.series.map((s) => s.series)).toEqual(SERIES);
    expect(verdict.samples_per_third).toBeGreaterThanOrEqual(2);
    expect(verdict.flat).toBe(verdict.series.every((s) => s.flat));
    expect(curve.length).toBeGreaterThanOrEqual(5);
  });

  it('refuses a --duration that is not a duration, with exit 2, before running anything', () => {
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--duration ten minutes');
    expect(bad.stdout).not.toContain('== soak');
    expect(existsSync(join(dir, 'bad', 'bench-results'))).toBe(false);
  });
});
