/**
 * What a command may touch of the outside world. main.ts builds it from `process`; tests build their own
 * and run the CLI in-process. Commands never read `process` directly.
 */
import type { Writable } from 'node:stream';

export interface CliContext {
  readonly stdout: Writable & { isTTY?: boolean; columns?: number };
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on Ctrl-C (SIGINT) or SIGTERM. */
  readonly interrupt: AbortSignal;
  /** Set by a command to the exit code it wants (default 0). */
  exitCode: number;
}
