/**
 * `run --workers N|auto`: how many worker threads send the load. `auto` is one per core, leaving one core
 * for the system (and the target, when it runs here) on machines with more than two; 1 keeps the whole
 * run in the main thread, as without the flag.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { InferbenchError } from '../errors.js';

/** More threads than this only add contention on any machine this runs on. */
const MAX_WORKERS = 256;

/** `--workers auto`: one per core, leaving one for the system on machines with more than two. */
function autoWorkers(cores: number): number {
  return cores > 2 ? cores - 1 : cores;
}

/** The number of workers `--workers` asks for (`cores`: the machine's, os.availableParallelism()). */
export function parseWorkers(text: string, cores = availableParallelism()): number {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'auto') return autoWorkers(cores);
  const count = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_WORKERS) {
    throw new InferbenchError(
      'BAD_USAGE',
      `--workers ${JSON.stringify(text)} is not a number from 1 to ${MAX_WORKERS} or auto`,
      {
        hint: `e.g. --workers 2, or --workers auto (this machine: ${autoWorkers(cores)})`,
      },
    );
  }
  return count;
}

/**
 * The remedy for a run (or capacity step) whose client was its own bottleneck, with this machine's core
 * count: more worker threads while the machine has cores for them, else shards on more machines.
 */
export function bottleneckRemedy(workers: number, cores = availableParallelism()): string {
  const suggested = Math.max(autoWorkers(cores), 2);
  const machine = `this machine has ${cores} core${cores === 1 ? '' : 's'}`;
  if (workers < suggested && cores > 1)
    return `the client was the bottleneck: use --workers ${suggested} (${machine}) or shards (--shard i/N, one per machine)`;
  return `the client was the bottleneck with ${workers} worker${workers === 1 ? '' : 's'} (${machine}): use shards (--shard i/N, one per machine)`;
}

/** dist/cli/run-worker-thread.js, also when this file runs from src/ under vitest (tests build dist/ first). */
export function workerThreadScript(): URL {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, 'run-worker-thread.js');
  return pathToFileURL(
    existsSync(sibling) ? sibling : resolve(here, '..', '..', 'dist', 'cli', 'run-worker-thread.js'),
  );
}
