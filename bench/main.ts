/**
 * `npm run bench` (node dist-bench/bench/main.js [name...] [--quick] [--skip part,...] [--duration 10m], built
 * by bench/tsconfig.json): runs every registered benchmark, or the named ones, prints each one's table and
 * writes its JSON to bench-results/<name>.json.
 * Flags are not names: they go to the benchmarks in their BenchContext. `npm run bench client --quick`
 * works too: npm keeps `--quick` for itself and hands it on as npm_config_quick (likewise `--skip=a,b`
 * and `--duration 1h`, see takeNpmDuration).
 * To add a benchmark, add it to BENCHMARKS.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { formatTable, type Benchmark } from './benchmark.js';
import { emulatorBenchmark } from './emulator-bench.js';
import { accuracyBenchmark } from './accuracy-bench.js';
import { httpBenchmark } from './http-bench.js';
import { clientBenchmark } from './client-bench.js';
import { capacityBenchmark } from './capacity-bench.js';
import { soakBenchmark } from './soak-bench.js';
import { startBenchmark } from './start-bench.js';
import { engineBenchmark } from './engine-bench.js';
import { parseDurationMs } from '../src/util/duration.js';

export const BENCHMARKS = {
  emulator: emulatorBenchmark,
  accuracy: accuracyBenchmark,
  http: httpBenchmark,
  client: clientBenchmark,
  capacity: capacityBenchmark,
  soak: soakBenchmark,
  start: startBenchmark,
  engine: engineBenchmark,
} satisfies Record<string, Benchmark>;

type BenchName = keyof typeof BENCHMARKS;

function isBenchName(name: string): name is BenchName {
  return Object.hasOwn(BENCHMARKS, name);
}

interface BenchArgs {
  readonly names: string[];
  quick: boolean;
  readonly skip: string[];
  duration: string | undefined;
  readonly badFlags: string[];
}

/** Names and flags of the command line, with the flags npm kept for itself (npm_config_*). */
function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): BenchArgs {
  const args: BenchArgs = {
    names: [],
    quick: env['npm_config_quick'] === 'true',
    skip: [],
    duration: env['npm_config_duration'],
    badFlags: [],
  };
  const npmSkip = env['npm_config_skip'];
  if (npmSkip !== undefined && npmSkip !== 'true' && npmSkip !== '') args.skip.push(...npmSkip.split(','));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--quick') args.quick = true;
    else if (arg === '--skip') args.skip.push(...(argv[++i] ?? '').split(','));
    else if (arg.startsWith('--skip=')) args.skip.push(...arg.slice('--skip='.length).split(','));
    else if (arg === '--duration') args.duration = argv[++i] ?? '';
    else if (arg.startsWith('--duration=')) args.duration = arg.slice('--duration='.length);
    else if (arg.startsWith('-')) args.badFlags.push(arg);
    else args.names.push(arg);
  }
  if (args.duration === 'true') takeNpmDuration(args);
  if (args.duration !== undefined && parseDurationMs(args.duration) === undefined)
    args.badFlags.push(`--duration ${args.duration}`);
  return args;
}

/**
 * `npm run bench soak --duration 1h`: npm keeps `--duration` as npm_config_duration=true and passes `1h` on
 * as a name; the first name that is a duration is the flag's value.
 */
function takeNpmDuration(args: BenchArgs): void {
  const at = args.names.findIndex((name) => !isBenchName(name) && parseDurationMs(name) !== undefined);
  if (at < 0) return;
  args.duration = args.names[at];
  args.names.splice(at, 1);
}

async function main(): Promise<number> {
  const parsed = parseArgs(process.argv.slice(2), process.env);
  const asked = parsed.names;
  const unknown = asked.filter((name) => !isBenchName(name));
  if (unknown.length > 0 || parsed.badFlags.length > 0) {
    process.stderr.write(
      `unknown benchmark(s) or flag(s): ${[...unknown, ...parsed.badFlags].join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}, --quick, --skip a,b, --duration 10m\n`,
    );
    return 2;
  }
  const names = asked.length > 0 ? (asked as BenchName[]) : (Object.keys(BENCHMARKS) as BenchName[]);
  const outDir = join(process.cwd(), 'bench-results');
  mkdirSync(outDir, { recursive: true });
  for (const name of names) {
    const bench: Benchmark = BENCHMARKS[name];
    process.stdout.write(`\n== ${name}: ${bench.description}\n`);
    const started = Date.now();
    const outcome = await bench.run({
      log: (line) => process.stderr.write(`[${name}] ${line}\n`),
      quick: parsed.quick,
      skip: parsed.skip.filter((part) => part !== ''),
      ...(parsed.duration === undefined ? {} : { duration: parsed.duration }),
    });
    process.stdout.write(`${formatTable(outcome.rows)}\n`);
    for (const note of outcome.notes ?? []) process.stdout.write(`${note}\n`);
    const file = join(outDir, `${name}.json`);
    const machine = {
      node: process.version,
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? 'unknown',
      platform: process.platform,
    };
    writeFileSync(
      file,
      `${JSON.stringify({ benchmark: name, started_at: new Date(started).toISOString(), duration_ms: Date.now() - started, machine, result: outcome.json }, null, 2)}\n`,
    );
    process.stdout.write(`written: ${file}\n`);
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
