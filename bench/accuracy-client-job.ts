/**
 * One round of inferbench under test in its own process (accuracy-client-child.ts): what it is asked to
 * run, what it answers, and the parent's side that forks it, pins it to a core, hands it the job and
 * waits for the answer. A fresh process per round, so every round pays inferbench's real start-up (the
 * tokenizer's tables, the JIT) inside its warmup, as a user's `inferbench run` does.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HarnessHealth } from '../src/metrics/run-summary.js';
import { pinProcess } from './cpu-pin.js';

export interface ClientJob {
  /** The profile to run (YAML), its target being `url`. */
  readonly profileText: string;
  readonly url: string;
}

/** A measured (not warmup) request: its body as sent, and the client's own stamps (performance.now() µs). */
export interface MeasuredRequest {
  readonly body: string;
  readonly ok: boolean;
  readonly sentUs: number;
  readonly firstTokenUs: number;
  readonly endUs: number;
  /** The TTFT inferbench reports for it (measure/request-timings.ts). */
  readonly ttftUs: number;
}

/** One garbage-collection pause in the child, on its performance.now() clock. */
export interface GcPause {
  readonly startMs: number;
  readonly durationMs: number;
  readonly kind: number;
}

export interface ClientRoundResult {
  /** The child's performance.now() ms + this = CLOCK_MONOTONIC ms (the server's traces' clock). */
  readonly offsetMs: number;
  readonly requests: MeasuredRequest[];
  readonly gcPauses: GcPause[];
  readonly harness: HarnessHealth;
}

export interface ClientProcessOptions {
  /** Core to pin the child to (where the machine allows). */
  readonly core: number;
  /** Node flags of the child (default: this process's, e.g. `--max-semi-space-size` of the bench script). */
  readonly nodeFlags?: readonly string[];
}

/** Runs `job` in a fresh inferbench child; resolves with its answer, rejects if it fails or dies. */
export function runClientRound(
  job: ClientJob,
  options: ClientProcessOptions,
): Promise<ClientRoundResult & { pinned: boolean }> {
  const child = fork(fileURLToPath(new URL('./accuracy-client-child.js', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...(options.nodeFlags ?? process.execArgv)],
  });
  // Pinned before it is given work, so that nothing it measures ran on another core.
  const pinned = pinProcess(child.pid, options.core);
  return new Promise((resolve, reject) => {
    let answered = false;
    child.once('message', (message: unknown) => {
      answered = true;
      const error = (message as { error?: string }).error;
      if (error !== undefined) reject(new Error(`inferbench under test failed: ${error}`));
      else resolve({ ...(message as ClientRoundResult), pinned });
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!answered) reject(new Error(`inferbench under test exited (code ${code}) without an answer`));
    });
    child.send(job);
  });
}
