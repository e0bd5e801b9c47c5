/**
 * `inferbench report <run-dir>`: rebuilds report.html, summary.csv and timeseries.csv of a run from its
 * saved results (histograms decoded from summary.json, the time series read from timeseries.csv), e.g.
 * after an upgrade of inferbench or when only summary.json was kept. `--dialect <tool>` prints the run's
 * numbers as vLLM, AIPerf, GuideLLM or llmperf define them (report/dialect-table.ts) and writes nothing.
 */
import { mkdir } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { loadRun, loadTimeSeries } from '../../report/compare/load-run.js';
import { writeRunFiles } from '../../report/run-folder.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import type { CommandImplementation } from './command.js';
import { DIALECT_NAMES, type DialectName } from '../../metrics/dialect-summary.js';
import type { RunSummary } from '../../metrics/run-summary.js';
import { formatDialectTables } from '../../report/dialect-table.js';

interface ReportArgs {
  runDir: string;
  out?: string;
  quiet: boolean;
  json: boolean;
  dialect?: DialectName;
}

export const reportCommand: CommandImplementation = (ctx) => ({
  builder: (command: Argv) =>
    command
      .positional('run-dir', { type: 'string', describe: 'Run directory (or its summary.json)', demandOption: true })
      .option('out', { type: 'string', describe: 'Write the files here instead of the run directory' })
      .option('quiet', { type: 'boolean', default: false, describe: 'Print nothing but errors' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the written paths (or the dialect) as JSON' })
      .option('dialect', {
        type: 'string',
        choices: DIALECT_NAMES,
        describe: "Print the run's numbers as this tool defines them (docs/dialects.md); writes nothing",
      }),
  handler: async (argv) => {
    ctx.exitCode = await runReport(argv as unknown as ReportArgs, ctx);
  },
});

async function runReport(args: ReportArgs, ctx: CliContext): Promise<number> {
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(ctx.cwd, p));
  const run = await loadRun(abs(args.runDir));
  if (args.dialect !== undefined) return printDialect(run.summary, args.dialect, args.json, ctx);
  const timeSeries = await loadTimeSeries(run.dir);
  const outDir = args.out ? abs(args.out) : run.dir;
  await mkdir(outDir, { recursive: true });
  const { paths: written, problems } = await writeRunFiles(outDir, { summary: run.summary, timeSeries }, [
    'report_html',
    'summary_csv',
    'timeseries_csv',
    'breakdowns_csv',
  ]);
  // Rebuilding the report is the whole point here: a report that could not be written is an error.
  if (problems.length > 0) throw new Error(problems.join('; '));
  if (args.json) ctx.stdout.write(`${JSON.stringify(written, null, 2)}\n`);
  else if (!args.quiet) {
    ctx.stdout.write(
      `rebuilt the report of run ${run.summary.run_id} (${run.summary.groups.length} group(s), ${timeSeries.length} time-series rows)\n`,
    );
    for (const path of Object.values(written)) ctx.stdout.write(`  ${path}\n`);
  }
  return EXIT.ok;
}

/** `--dialect`: the run's numbers as that tool defines them, per group; `--json`: those summaries by group key. */
function printDialect(summary: RunSummary, dialect: DialectName, json: boolean, ctx: CliContext): number {
  const table = formatDialectTables(summary, dialect);
  if (json) {
    const byGroup = Object.fromEntries(summary.groups.map((group) => [group.key, group.dialects?.[dialect] ?? null]));
    ctx.stdout.write(`${JSON.stringify(byGroup, null, 2)}\n`);
  } else ctx.stdout.write(table);
  return EXIT.ok;
}
