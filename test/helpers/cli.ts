/**
 * Runs the whole CLI in-process (runCli) with a CliContext of in-memory streams, so tests see exactly
 * what a user would see on stdout and stderr, and the exit code, without spawning a process.
 * `interrupt` lets a test play Ctrl-C.
 */
import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.js';
import type { CliContext } from '../../src/cli/context.js';

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

export async function runCliInProcess(argv: readonly string[], options: CliRunOptions = {}): Promise<CliRunResult> {
  const stdout = new MemoryStream(options.tty);
  const stderr = new MemoryStream(options.tty);
  const ctx: CliContext = {
    stdout,
    stderr,
    env: options.env ?? { PATH: process.env.PATH },
    cwd: options.cwd ?? process.cwd(),
    interrupt: options.interrupt ?? new AbortController().signal,
    exitCode: 0,
  };
  const code = await runCli(argv, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}
