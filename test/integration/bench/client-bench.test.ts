/**
 * `npm run bench client --quick` (the built dist-bench/bench/main.js, as `npm test`'s pretest builds it) runs to
 * the end, prints its table with a row for every target of the client benchmark and writes
 * bench-results/client.json with every target in it. Every section must have run: a section that failed
 * (its one "section failed" row), the accuracy section included, fails this test, and so does a target
 * whose number is missing or out of the range any working measurement gives, a request that failed, or an
 * accuracy level whose TTFT does not run from the socket write to the first token. Never a timing limit:
 * how fast the client is belongs to the benchmark, on a quiet machine, not to a test on a shared one. Runs
 * in a temporary folder, since the benchmark writes bench-results/ under its working directory.
 * @module-tag tool
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = resolve(import.meta.dirname, '..', '..', '..', 'dist-bench', 'bench', 'main.js');

/** Every section of the benchmark, in its order. */
const SECTIONS = ['events', 'in-process', 'plain-http', 'open-loop', 'streams', 'accuracy'];

/** The known-timing server of the accuracy section: 32 tokens 10 ms apart (client-accuracy.ts). */
const ACCURACY_STREAM_MS = 31 * 10;

const positive = (v: number): boolean => v > 0;
const nonNegative = (v: number): boolean => v >= 0;
const count = (v: number): boolean => Number.isInteger(v) && v >= 0;

/** Every target line, by section (a part of each target's text), with the range its measured number must be in. */
const TARGETS: Readonly<Record<string, Readonly<Record<string, (measured: number) => boolean>>>> = {
  events: { 'events absorbed, 1 event per read': positive, 'events absorbed, 16+ events per read': positive },
  'in-process': {
    'cost per event (framing, timestamp, histogram, token accounting)': positive,
    '8 MiB event in 1,460-byte pieces': positive,
  },
  'plain-http': { 'vs autocannon': positive, 'vs wrk': positive },
  'open-loop': {
    'lateness p99 at 1000 arrivals/s': nonNegative,
    'lateness p99 at 3000 arrivals/s': nonNegative,
    'lateness p99 at 5000 arrivals/s': nonNegative,
    'arrivals dropped': count,
  },
  streams: {
    'event-loop delay p99': nonNegative,
    // How many of the 200 (--quick) were open at once is a timing (a loaded machine opens fewer within the section's time).
    'in flight = target': (v) => Number.isInteger(v) && v > 0 && v <= 200,
    'RSS per open stream': Number.isFinite,
    'heap per open stream': positive,
    'cost per event flat': (v) => v >= 1,
  },
  accuracy: {
    'TTFT error p50, closed loop 64 streams': nonNegative,
    'TTFT error p99, closed loop 64 streams': nonNegative,
    'TTFT error p50, closed loop 256 streams': nonNegative,
    'TTFT error p99, closed loop 256 streams': nonNegative,
    'GC pauses over 5 ms during the measured 256-stream run': count,
  },
};

interface Result {
  section: string;
  target: string;
  limit: string;
  measured: number | null;
  unit: string;
  comparator: string | null;
  comparatorMeasured: number | null;
  ratio: number | null;
  met: boolean | null;
  note?: string;
}

/** One client's round of the accuracy section (accuracy-ttft-error.ts TtftErrorSummary, the fields read here). */
interface TtftError {
  requests: number;
  matched: number;
  failed: number;
  errorP50Ms: number;
  errorP99Ms: number;
  errorMaxMs: number;
  sendWaitP99Ms: number;
  readLagP50Ms: number;
}

interface Written {
  benchmark: string;
  result: {
    settings: { quick: boolean };
    results: Result[];
    raw: {
      'plain-http': { inferbench: { failed: number }[]; autocannon: { failed: number }[] };
      'open-loop': { runs: Record<string, { requests: { ok: number; failed: number } }[]> };
      accuracy: {
        levels: {
          level: { streams: number; requests: number };
          inferbench: { error: TtftError; pinned: boolean }[];
        }[];
      };
    };
  };
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

const written = (): Written => JSON.parse(readFileSync(join(dir, 'bench-results', 'client.json'), 'utf8')) as Written;

describe('npm run bench client --quick', () => {
  it('exits 0 and prints a table with a row for every target', () => {
    expect(exitCode, stderr.slice(-2000)).toBe(0);
    const header = stdout.split('\n').find((line) => line.includes('section') && line.includes('target'));
    for (const column of ['section', 'target', 'measured', 'range', 'limit', 'comparator', 'ratio', 'met']) {
      expect(header).toContain(column);
    }
    for (const targets of Object.values(TARGETS)) {
      for (const target of Object.keys(targets)) expect(stdout).toContain(target);
    }
    expect(stdout).not.toContain('section failed');
  });

  it('every section ran, accuracy included: no section failed, each target once with a number in range', () => {
    const { benchmark, result } = written();
    expect(benchmark).toBe('client');
    expect(result.settings.quick).toBe(true);
    const failed = result.results.filter((r) => r.target === 'section failed');
    expect(failed.map((r) => `${r.section}: ${r.note ?? ''}`)).toEqual([]);
    expect([...new Set(result.results.map((r) => r.section))]).toEqual(SECTIONS);
    for (const [section, targets] of Object.entries(TARGETS)) {
      expect(result.results.filter((r) => r.section === section)).toHaveLength(Object.keys(targets).length);
      for (const [target, inRange] of Object.entries(targets)) {
        const found = result.results.filter((r) => r.section === section && r.target.includes(target));
        expect(found, `${section}: ${target}`).toHaveLength(1);
        const line = found[0] as Result;
        expect(typeof line.measured, `${section}: ${target} measured`).toBe('number');
        const measured = line.measured as number;
        expect(inRange(measured), `${section}: ${target} measured ${measured} ${line.unit}`).toBe(true);
        expect(typeof line.limit).toBe('string');
        expect(typeof line.unit).toBe('string');
        expect(['boolean', 'object']).toContain(typeof line.met);
        if (line.comparator !== null && section !== 'accuracy') {
          expect(line.comparatorMeasured, `${section}: ${target} comparator`).toBeGreaterThan(0);
        }
      }
    }
  });

  it('every request of the plain-HTTP and open-loop sections succeeded', () => {
    const { raw } = written().result;
    for (const run of [...raw['plain-http'].inferbench, ...raw['plain-http'].autocannon]) expect(run.failed).toBe(0);
    for (const [rate, runs] of Object.entries(raw['open-loop'].runs)) {
      for (const run of runs) {
        expect(run.requests.failed, `open loop at ${rate}/s`).toBe(0);
        expect(run.requests.ok, `open loop at ${rate}/s`).toBeGreaterThan(0);
      }
    }
  });

  /**
   * A TTFT error is |reported - what the wire did|, a timing; what holds on any machine is where the TTFT
   * starts and ends. It starts at the socket write (closed loop), so the wait from its start to the socket
   * is zero; it ends at the first token, so no stamp comes before the server wrote that token (a stamp at
   * the headers would, by the 50 ms TTFT) and the median is far from the last token, 310 ms later.
   */
  it('the accuracy section ran each level: every request answered and found in the traces, TTFT from the write to the first token', () => {
    const levels = written().result.raw.accuracy.levels;
    expect(levels.map((l) => l.level.streams)).toEqual([64, 256]);
    for (const { level, inferbench } of levels) {
      expect(inferbench).toHaveLength(1);
      for (const { error } of inferbench) {
        expect(error.requests, `${level.streams} streams`).toBe(level.requests);
        expect(error.failed, `${level.streams} streams`).toBe(0);
        expect(error.matched, `${level.streams} streams`).toBe(level.requests);
        expect(error.errorP50Ms).toBeGreaterThanOrEqual(0);
        expect(error.errorP99Ms).toBeGreaterThanOrEqual(error.errorP50Ms);
        expect(error.errorMaxMs).toBeGreaterThanOrEqual(error.errorP99Ms);
        expect(Math.abs(error.sendWaitP99Ms), `${level.streams} streams: TTFT start to socket`).toBeLessThan(1);
        expect(error.readLagP50Ms, `${level.streams} streams: first token write to stamp`).toBeGreaterThan(-1);
        expect(error.readLagP50Ms, `${level.streams} streams: first token write to stamp`).toBeLessThan(
          ACCURACY_STREAM_MS / 2,
        );
      }
    }
  });
});
