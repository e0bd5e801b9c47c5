#!/usr/bin/env -S node --max-semi-space-size=4
/** The executable: builds the CliContext from `process` and exits with the command's code. */
import { runCli } from './run-cli.js';
import type { CliContext } from './context.js';

const interrupt = new AbortController();
let interrupts = 0;
const onSignal = (): void => {
  interrupts++;
  // A second Ctrl-C means "now": results measured so far are already on disk (requests.csv streams).
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

const ctx: CliContext = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  interrupt: interrupt.signal,
  exitCode: 0,
};

const code = await runCli(process.argv.slice(2), ctx);
process.exitCode = code;
