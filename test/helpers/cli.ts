/**
 * Runs the whole CLI in-process (runCli) with a CliContext of in-memory streams, so tests see exactly
 * what a user would see on stdout and stderr, and the exit code, without spawning a process.
 * `interrupt` lets a test play Ctrl-C; `target` points a run at an in-process emulator (--base-url and its
 * keys in the environment) instead of the embedded child (helpers/in-process-emulator.ts).
 */
import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.js';
import type { CliContext } from '../../src/cli/context.js';
import type { RunTarget } from './in-process-emulator.js';

export interface CliRunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliRunOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Aborting this plays Ctrl-C. */
  readonly interrupt?: AbortSignal;
  /** Pretend stdout/stderr are terminals (progress line redrawn in place). */
  readonly tty?: boolean;
  /** Points the run at this emulator (withTarget). */
  readonly target?: RunTarget;
}

/** A Writable that keeps what is written, as text. */
export class MemoryStream extends Writable {
  text = '';
  isTTY: boolean;
  columns = 120;

  constructor(tty = false) {
    super();
    this.isTTY = tty;
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    callback();
  }
}

/** argv and env pointed at `target`: `--base-url` added, its keys under their default variables before `env`. */
export function withTarget(
  argv: readonly string[],
  env: CliContext['env'],
  target: RunTarget | undefined,
): { readonly argv: readonly string[]; readonly env: CliContext['env'] } {
  if (target === undefined) return { argv, env };
  return {
    argv: [...argv, '--base-url', target.url],
    env: { INFERENCE_API_KEY: target.apiKey, INFERENCE_MANAGEMENT_KEY: target.managementKey, ...env },
  };
}

export async function runCliInProcess(argv: readonly string[], options: CliRunOptions = {}): Promise<CliRunResult> {
  const stdout = new MemoryStream(options.tty);
  const stderr = new MemoryStream(options.tty);
  const run = withTarget(argv, options.env ?? { PATH: process.env.PATH }, options.target);
  const ctx: CliContext = {
    stdout,
    stderr,
    env: run.env,
    cwd: options.cwd ?? process.cwd(),
    interrupt: options.interrupt ?? new AbortController().signal,
    exitCode: 0,
  };
  const code = await runCli(run.argv, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}
