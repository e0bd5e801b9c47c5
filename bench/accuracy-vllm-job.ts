/**
 * One round of the comparator, vLLM's benchmark request function (vllm-request-fn.py, Python and
 * aiohttp), pinned to a core like inferbench: the parent's side that checks it can run here, starts it at
 * a closed-loop concurrency and reads its per-request JSON lines. Debian's /usr/bin/python3 with
 * python3-aiohttp is the interpreter (a pyenv `python3` on PATH usually lacks aiohttp); without it the
 * comparator is reported missing, never a failure.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../src/cli/package-root.js';
import { onCore } from './cpu-pin.js';

const PYTHON = '/usr/bin/python3';
/** Not compiled by tsc: the source file in bench/, also when this runs from dist-bench/bench/. */
const SCRIPT = join(packageRoot(), 'bench', 'vllm-request-fn.py');

/** One measured request of the comparator; times in CLOCK_MONOTONIC ms. */
export interface VllmRequest {
  readonly marker: string;
  readonly ok: boolean;
  /** perf_counter() before the POST: the start of vLLM's TTFT. */
  readonly startMs?: number;
  /** The body handed to the socket (our trace hook): the wire's start. */
  readonly sentMs?: number;
  /** The first event with choices: the end of vLLM's TTFT. */
  readonly firstMs?: number;
  readonly endMs?: number;
  readonly error?: string;
}

export interface VllmJob {
  readonly url: string;
  readonly concurrency: number;
  readonly requests: number;
  readonly warmup: number;
  readonly maxTokens: number;
  /** Unique per round: the prompts' markers begin with it. */
  readonly tag: string;
}

let missing: string | null | undefined;

/** Why the comparator cannot run here, or null when it can (checked once). */
export function vllmComparatorMissing(): string | null {
  if (missing === undefined) {
    const probe = spawnSync(PYTHON, ['-c', 'import aiohttp'], { stdio: 'ignore' });
    missing =
      probe.error !== undefined || probe.status !== 0
        ? `${PYTHON} with aiohttp not found (apt-get install -y python3-aiohttp)`
        : null;
  }
  return missing;
}

/** Runs one closed-loop round of the comparator on `core`; resolves with its measured requests. */
export function runVllmRound(job: VllmJob, core: number): Promise<VllmRequest[]> {
  const args = [job.url, job.concurrency, job.requests, job.warmup, job.maxTokens, job.tag].map(String);
  const [command, argv] = onCore(core, PYTHON, [SCRIPT, ...args]);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (piece: Buffer) => out.push(piece));
  child.stderr.on('data', (piece: Buffer) => err.push(piece));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) {
        reject(new Error(`vllm-request-fn.py exited ${code}: ${Buffer.concat(err).toString().slice(-500)}`));
        return;
      }
      const lines = Buffer.concat(out).toString('utf8').split('\n');
      resolve(lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as VllmRequest));
    });
  });
}
