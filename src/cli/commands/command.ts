/**
 * A CLI command's implementation: its options (the yargs builder) and its handler, closing over the
 * CliContext. Its name and one-line description live in commands/index.ts, which loads the module only
 * when the command line names the command (so `--help` and every other command start without it).
 */
import type { ArgumentsCamelCase, Argv } from 'yargs';
import type { CliContext } from '../context.js';

export interface CommandHandlers {
  readonly builder: (command: Argv) => Argv;
  readonly handler: (args: ArgumentsCamelCase) => void | Promise<void>;
}

export type CommandImplementation = (ctx: CliContext) => CommandHandlers;
