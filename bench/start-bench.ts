/**
 * `npm run bench start`: what one start of inferbench costs, median of several starts each.
 *
 * - `--help`, `--version` and `validate profiles/quickstart.yaml`: `node dist/cli/main.js ...` from spawn
 *   to exit; the child's own CPU (user + system, process.cpuUsage() at its exit, written to fd 3 by a
 *   one-line `--import` module) beside the wall time, since wall time on a shared machine is mostly waiting.
 * - the emulator child: `node dist/cli/main.js serve --port 0`, from spawn to its base URL on stdout (what
 *   every run without --base-url waits for); its CPU up to then is read from /proc/<pid>/stat (Linux).
 * - a worker thread of `run --workers N`: from `new Worker` (runner/worker-thread-handle.ts) to its `ready`
 *   message (models resolved and workloads built, against an emulator started once); its CPU is this
 *   process's while it waits (the main thread only waits).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmbeddedEmulator } from '../src/cli/embedded-emulator.js';
import { packageRoot } from '../src/cli/package-root.js';
import { monotonicAnchorMs } from '../src/cli/thread-clock.js';
import { workerThreadScript } from '../src/cli/worker-count.js';
import { loadProfile } from '../src/profile/load-profile.js';
import { WorkerThreadHandle } from '../src/runner/worker-thread-handle.js';
import type { BenchContext, BenchOutcome, BenchRow, Benchmark } from './benchmark.js';

interface StartSample {
  readonly wallMs: number;
  /** null where it could not be read (no /proc). */
  readonly cpuMs: number | null;
}

interface StartResult {
  readonly start: string;
  readonly samples: readonly StartSample[];
}

/** Writes the process's own CPU at exit to fd 3 (the bench reads it from the pipe). */
const CPU_AT_EXIT = `data:text/javascript,${encodeURIComponent(
  "import { writeSync } from 'node:fs'; process.on('exit', () => { const u = process.cpuUsage(); writeSync(3, String((u.user + u.system) / 1000)); });",
)}`;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function cliStart(args: readonly string[]): StartSample {
  const root = packageRoot();
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', CPU_AT_EXIT, join(root, 'dist', 'cli', 'main.js'), ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`inferbench ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  const cpuMs = Number(result.output[3]?.toString() ?? Number.NaN);
  return { wallMs, cpuMs: Number.isFinite(cpuMs) ? cpuMs : null };
}

/** utime + stime of a live process, in ms (Linux; null elsewhere). */
function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), counted from the state field (3rd) after the name.
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100;
  } catch {
    return null;
  }
}

function emulatorStart(): Promise<StartSample> {
  const root = packageRoot();
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist', 'cli', 'main.js'), 'serve', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`serve exited ${code} before its base URL`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (!out.includes('\n')) return;
      const wallMs = performance.now() - started;
      const cpuMs = child.pid === undefined ? null : processCpuMs(child.pid);
      child.removeAllListeners('exit');
      child.once('exit', () => resolve({ wallMs, cpuMs }));
      child.kill('SIGKILL');
    });
  });
}

async function workerStarts(count: number): Promise<StartSample[]> {
  const root = packageRoot();
  const emulator = await startEmbeddedEmulator({ configPath: null });
  const samples: StartSample[] = [];
  try {
    const profile = loadProfile(join(root, 'profiles', 'quickstart.yaml'));
    for (let i = 0; i < count; i++) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const handle = new WorkerThreadHandle(
        workerThreadScript(),
        {
          workerIndex: 1,
          workerCount: 1,
          share: { index: 1, count: 1 },
          profile,
          baseUrl: emulator.url,
          apiKey: emulator.apiKey,
          version: 'bench',
          proxy: null,
          tickIntervalMs: 1000,
          harnessRampMs: 0,
          clockAnchorMs: monotonicAnchorMs(),
        },
        { events: () => undefined, idle: () => undefined },
      );
      await handle.ready;
      const wallMs = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      samples.push({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000 });
      await handle.stop();
    }
  } finally {
    await emulator.stop();
  }
  return samples;
}

function row(result: StartResult): BenchRow {
  const cpus = result.samples.flatMap((s) => (s.cpuMs === null ? [] : [s.cpuMs]));
  const walls = result.samples.map((s) => s.wallMs);
  return {
    start: result.start,
    starts: result.samples.length,
    'wall p50 ms': Math.round(median(walls)),
    'wall min-max ms': `${Math.round(Math.min(...walls))}-${Math.round(Math.max(...walls))}`,
    'cpu p50 ms': cpus.length === 0 ? 'n/a' : Math.round(median(cpus)),
  };
}

export const startBenchmark: Benchmark = {
  description: 'start-up cost: CLI --help/--version/validate, the emulator child to its URL, a worker thread to ready',
  async run(ctx: BenchContext): Promise<BenchOutcome> {
    const count = ctx.quick ? 3 : 7;
    const results: StartResult[] = [];
    const cli: readonly (readonly string[])[] = [['--help'], ['--version'], ['validate', 'profiles/quickstart.yaml']];
    for (const args of cli) {
      ctx.log(`inferbench ${args.join(' ')} x${count}`);
      const samples: StartSample[] = [];
      for (let i = 0; i < count; i++) samples.push(cliStart(args));
      results.push({ start: `inferbench ${args.join(' ')}`, samples });
    }
    ctx.log(`serve --port 0 to its URL x${count}`);
    const emulator: StartSample[] = [];
    for (let i = 0; i < count; i++) emulator.push(await emulatorStart());
    results.push({ start: 'emulator child: spawn -> base URL', samples: emulator });
    ctx.log(`worker thread to ready x${count}`);
    results.push({ start: 'worker thread: new Worker -> ready', samples: await workerStarts(count) });
    return {
      rows: results.map(row),
      json: { node: process.version, results },
      notes: ["cpu: the child's user + system CPU (a worker: this process's, its main thread only waiting)"],
    };
  },
};
