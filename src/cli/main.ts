#!/usr/bin/env -S node --max-semi-space-size=4
/** The executable: builds the CliContext from `process` and exits with the command's code. */
import { runCli } from './run-cli.js';
import { processCliContext } from './process-context.js';

const code = await runCli(process.argv.slice(2), processCliContext());
process.exitCode = code;
