/**
 * `npm run bench client --quick` (the built dist-bench/bench/main.js, as `npm test`'s pretest builds it) runs to
 * the end, prints its table with a row for every target of the client benchmark and writes
 * bench-results/client.json with every target in it. Never a timing: how fast the client is belongs to
 * the benchmark, on a quiet machine, not to a test on a shared one. Runs in a temporary folder, since the
 * benchmark writes bench-results/ under its working directory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = resolve(import.meta.dirname, '..', '..', '..', 'dist-bench', 'bench', 'main.js');

/** Every target line of the pinned sections, by section (a part of each target's text). */
const TARGETS: Readonly<Record<string, readonly string[]>> = {
  events: ['events absorbed, 1 event per read', 'events absorbed, 16+ events per read'],
  'in-process': [
    'cost per event (framing, timestamp, histogram, token accounting)',
    '8 MiB event in 1,460-byte pieces',
  ],
  'plain-http': ['vs autocannon', 'vs wrk'],
  'open-loop': [
    'lateness p99 at 1000 arrivals/s',
    'lateness p99 at 3000 arrivals/s',
    'lateness p99 at 5000 arrivals/s',
    'arrivals dropped',
  ],
  streams: [
    'event-loop delay p99',
    'in flight = target',
    'RSS per open stream',
    'heap per open stream',
    'cost per event flat',
  ],
};

interface Result {
  section: string;
  target: string;
  limit: string;
  measured: number | null;
  unit: string;
  comparator: string | null;
  ratio: number | null;
  met: boolean | null;
}

let dir: string;
let stdout = '';
let stderr = '';
let exitCode: number | null = null;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferbench-client-bench-'));
  exitCode = await new Promise<number | null>((done, fail) => {
    const child = spawn(process.execPath, ['--max-semi-space-size=4', MAIN, 'client', '--quick'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', fail);
    child.on('exit', (code) => done(code));
  });
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm run bench client --quick', () => {
  it('exits 0 and prints a table with a row for every target', () => {
    expect(exitCode, stderr.slice(-2000)).toBe(0);
    const header = stdout.split('\n').find((line) => line.includes('section') && line.includes('target'));
    for (const column of ['section', 'target', 'measured', 'range', 'limit', 'comparator', 'ratio', 'met']) {
      expect(header).toContain(column);
    }
    for (const targets of Object.values(TARGETS)) {
      for (const target of targets) expect(stdout).toContain(target);
    }
  });

  it('writes bench-results/client.json with every target and the accuracy section', () => {
    const written = JSON.parse(readFileSync(join(dir, 'bench-results', 'client.json'), 'utf8')) as {
      benchmark: string;
      result: { settings: { quick: boolean }; results: Result[] };
    };
    expect(written.benchmark).toBe('client');
    expect(written.result.settings.quick).toBe(true);
    const results = written.result.results;
    // No section of this benchmark's own failed (the accuracy section is judged by its own test).
    expect(results.filter((r) => r.target === 'section failed' && r.section !== 'accuracy')).toEqual([]);
    for (const [section, targets] of Object.entries(TARGETS)) {
      for (const target of targets) {
        const found = results.filter((r) => r.section === section && r.target.includes(target));
        expect(found, `${section}: ${target}`).toHaveLength(1);
        const line = found[0] as Result;
        expect(typeof line.limit).toBe('string');
        expect(typeof line.unit).toBe('string');
        expect(['boolean', 'object']).toContain(typeof line.met);
      }
    }
    expect(results.some((r) => r.section === 'accuracy')).toBe(true);
  });
});
