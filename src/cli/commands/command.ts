/** A CLI command registers itself on the yargs parser, closing over the CliContext. */
import type { Argv } from 'yargs';
import type { CliContext } from '../context.js';

export type CommandRegistration = (parser: Argv, ctx: CliContext) => Argv;
