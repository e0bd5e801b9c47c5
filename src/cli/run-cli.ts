/**
 * Parses argv with yargs and runs one command. Returns the exit code instead of exiting, so tests run
 * the whole CLI in-process. Errors become one clear message (and a hint) on stderr, never a stack trace
 * unless INFERBENCH_DEBUG is set.
 */
import yargs from 'yargs';
import type { Argv } from 'yargs';
import { isInferbenchError } from '../errors.js';
import type { CliContext } from './context.js';
import { EXIT, EXIT_CODE_BY_ERROR } from './exit-codes.js';
import { COMMANDS, commandsNamedBy } from './commands/index.js';
import { inferbenchVersion } from './version.js';
import { rejectRepeatedFlags } from './single-value-flags.js';
import { dashboardTookProfile } from './live-views.js';

export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  let parser: Argv = yargs([...argv])
    .scriptName('inferbench')
    .usage('$0 <command> [options]')
    .version(inferbenchVersion())
    .strict()
    .demandCommand(1, 'Name a command; `inferbench --help` lists them.')
    .recommendCommands()
    // `inferbench completion >> ~/.bashrc` (bash; zsh with bashcompinit): commands and flags on Tab.
    .completion('completion', 'Print a bash/zsh completion script: inferbench completion >> ~/.bashrc')
    // yargs renders a command's whole help text each time it runs one (to have it should it fail), and
    // wrapping it is ~200 ms of CPU for `run`: wrapped only when the help is what was asked for.
    .wrap(asksForHelp(argv) ? Math.min(110, ctx.stdout.columns ?? 100) : null)
    .exitProcess(false)
    .fail((message, error) => {
      // yargs's own parse errors (a flag missing its value: "Not enough arguments following") come as a
      // YError: bad usage, not a bug. Errors of a command's handler pass through.
      if (error && error.name !== 'YError') throw error;
      const text = message ?? error?.message ?? 'bad usage';
      throw dashboardTookProfile(argv, text) ?? new UsageMessage(text);
    })
    .middleware((args) => rejectRepeatedFlags(args, declaredOptions(parser).array));
  try {
    const named = commandsNamedBy(argv);
    const loaded = new Map(
      await Promise.all([...named].map(async (entry) => [entry, (await entry.load())(ctx)] as const)),
    );
    for (const entry of COMMANDS) {
      const implementation = loaded.get(entry);
      // A command the line does not name is listed (help, suggestions, completion) without loading it.
      parser = implementation
        ? parser.command(entry.command, entry.describe, implementation.builder, implementation.handler)
        : parser.command(entry.command, entry.describe);
    }
    let helpOutput = '';
    await parser.parseAsync([...argv], {}, (_err, _argv, output) => {
      helpOutput = output;
    });
    if (helpOutput) ctx.stdout.write(`${helpOutput}\n`);
    return ctx.exitCode;
  } catch (error) {
    return reportError(error, ctx);
  }
}

class UsageMessage extends Error {}

function asksForHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/** The running command's declared options: yargs has `getOptions()` at run time but not in its types. */
function declaredOptions(parser: Argv): { readonly array: readonly string[] } {
  return (parser as unknown as { getOptions(): { array: string[] } }).getOptions();
}

function reportError(error: unknown, ctx: CliContext): number {
  if (error instanceof UsageMessage) {
    ctx.stderr.write(`inferbench: ${error.message}\n`);
    return EXIT.usage;
  }
  if (isInferbenchError(error)) {
    ctx.stderr.write(`inferbench: ${error.message}\n`);
    if (error.hint) ctx.stderr.write(`  hint: ${error.hint}\n`);
    if (ctx.env.INFERBENCH_DEBUG && error.cause)
      ctx.stderr.write(`${String((error.cause as Error).stack ?? error.cause)}\n`);
    return EXIT_CODE_BY_ERROR[error.code];
  }
  const message = error instanceof Error ? error.message : String(error);
  ctx.stderr.write(`inferbench: internal error: ${message}\n`);
  ctx.stderr.write('  hint: this is a bug in inferbench; rerun with INFERBENCH_DEBUG=1 for the stack trace.\n');
  if (ctx.env.INFERBENCH_DEBUG && error instanceof Error) ctx.stderr.write(`${error.stack}\n`);
  return EXIT.internal;
}
