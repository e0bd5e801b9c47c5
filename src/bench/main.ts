/**
 * `npm run bench` (node dist/bench/main.js [name...]): runs every registered benchmark, or the named
 * ones, prints each one's table and writes its JSON to bench-results/<name>.json. To add a benchmark,
 * add it to BENCHMARKS.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { formatTable, type Benchmark } from './benchmark.js';
import { emulatorBenchmark } from './emulator-bench.js';
import { accuracyBenchmark } from './accuracy-bench.js';
import { httpBenchmark } from './http-bench.js';

export const BENCHMARKS = {
  emulator: emulatorBenchmark,
  accuracy: accuracyBenchmark,
  http: httpBenchmark,
} satisfies Record<string, Benchmark>;

type BenchName = keyof typeof BENCHMARKS;

function isBenchName(name: string): name is BenchName {
  return Object.hasOwn(BENCHMARKS, name);
}

async function main(): Promise<number> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !isBenchName(name));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}\n`);
    return 2;
  }
  const names = asked.length > 0 ? (asked as BenchName[]) : (Object.keys(BENCHMARKS) as BenchName[]);
  const outDir = join(process.cwd(), 'bench-results');
  mkdirSync(outDir, { recursive: true });
  for (const name of names) {
    const bench: Benchmark = BENCHMARKS[name];
    process.stdout.write(`\n== ${name}: ${bench.description}\n`);
    const started = Date.now();
    const outcome = await bench.run({ log: (line) => process.stderr.write(`[${name}] ${line}\n`) });
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
