/**
 * The CliContext of a process: its streams, environment and working directory, and an interrupt signal
 * that Ctrl-C (SIGINT) and SIGTERM abort (a second one exits 130 at once: the results measured so far are
 * already on disk). Shared by the executables: `inferbench` (main.ts) and the GitHub Action's
 * (github-action-main.ts).
 */
import type { CliContext } from './context.js';

export function processCliContext(): CliContext {
  const interrupt = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    interrupt.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  // A reader that stops early (`inferbench validate x.yaml | head`) closes the pipe: that is not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }

  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    interrupt: interrupt.signal,
    exitCode: 0,
  };
}
