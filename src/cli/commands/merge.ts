/**
 * `inferbench merge <dir>... --out DIR`: the results of the shards of one run (`run --shard i/N`) merged
 * exactly (report/merge/merge-runs.ts) and written as one run folder: summary.json (with `merged_from`),
 * summary.csv, timeseries.csv, report.html and requests.csv. Exit 2 when the folders are not shards of
 * one run (without --force), 99 when a threshold fails on the merged result, 0 otherwise.
 */
import { mkdir } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { InferbenchError } from '../../errors.js';
import { loadRun, loadTimeSeries } from '../../report/compare/load-run.js';
import { mergeRequestsCsv } from '../../report/merge/merge-requests-csv.js';
import { mergeRuns, shardOf, type ShardResults } from '../../report/merge/merge-runs.js';
import { writeRunFiles } from '../../report/run-folder.js';
import { formatSummaryTable, formatThresholds } from '../../report/summary-table.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { inferbenchVersion } from '../version.js';
import type { CommandImplementation } from './command.js';

interface MergeArgs {
  dirs: string[];
  out: string;
  force: boolean;
  quiet: boolean;
  json: boolean;
}

export const mergeCommand: CommandImplementation = (ctx) => ({
  builder: (command: Argv) =>
    command
      .positional('dirs', {
        type: 'string',
        array: true,
        describe: 'Two or more run directories (or their summary.json)',
        demandOption: true,
      })
      .option('out', { type: 'string', describe: 'Folder for the merged run (created)', demandOption: true })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'Merge even runs of different profiles or workloads, with a loud warning',
      })
      .option('quiet', { type: 'boolean', default: false, describe: 'Print nothing but errors' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the written paths as JSON' }),
  handler: async (argv) => {
    ctx.exitCode = await runMerge(argv as unknown as MergeArgs, ctx);
  },
});

async function runMerge(args: MergeArgs, ctx: CliContext): Promise<number> {
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(ctx.cwd, p));
  const runs = await Promise.all(args.dirs.map((dir) => loadRun(abs(dir))));
  const outDir = abs(args.out);
  const overwritten = runs.find((run) => resolve(run.dir) === outDir);
  if (overwritten)
    throw new InferbenchError('BAD_USAGE', `--out ${args.out} is one of the folders being merged.`, {
      hint: 'Write the merged run into a folder of its own.',
    });
  const shards: ShardResults[] = await Promise.all(
    runs.map(async (run) => ({ dir: run.dir, summary: run.summary, timeSeries: await loadTimeSeries(run.dir) })),
  );
  const merged = mergeRuns(shards, { force: args.force, version: inferbenchVersion() });
  if (merged.mismatches.length > 0) {
    ctx.stderr.write('\n!!! WARNING: --force: these runs are not shards of one run; the merged numbers may mislead:\n');
    for (const mismatch of merged.mismatches) ctx.stderr.write(`!!!   ${mismatch}\n`);
    ctx.stderr.write('\n');
  }

  await mkdir(outDir, { recursive: true });
  const results = { summary: merged.summary, timeSeries: merged.timeSeries };
  const { paths, problems } = await writeRunFiles(outDir, results);
  const requests = await mergeRequestsCsv(
    outDir,
    shards
      .map((shard) => ({ dir: shard.dir, offsetMs: Date.parse(shard.summary.started_at) - merged.startedAtMs }))
      .sort((a, b) => a.offsetMs - b.offsetMs),
  );
  const positions = shards.flatMap((shard) => shardOf(shard.summary) ?? []);
  const expected = positions[0]?.count;
  if (expected !== undefined && new Set(positions.map((p) => p.index)).size < expected)
    problems.push(`only ${new Set(positions.map((p) => p.index)).size} of ${expected} shards were merged`);
  for (const dir of requests.missing)
    problems.push(`${dir} has no requests.csv: the merged requests.csv lacks its rows`);

  const { summary } = merged;
  if (args.json) ctx.stdout.write(`${JSON.stringify({ ...paths, requests_csv: requests.path }, null, 2)}\n`);
  else if (!args.quiet) {
    ctx.stdout.write(`merged ${summary.merged_from.length} runs: ${summary.merged_from.join(', ')}\n\n`);
    ctx.stdout.write(formatSummaryTable(summary.groups));
    if (summary.thresholds.length > 0) ctx.stdout.write(`\nthresholds:\n${formatThresholds(summary.thresholds)}`);
  }
  for (const warning of summary.harness.warnings) ctx.stderr.write(`inferbench: warning: ${warning}\n`);
  for (const warning of merged.warnings) ctx.stderr.write(`inferbench: warning: ${warning}\n`);
  for (const problem of problems) ctx.stderr.write(`inferbench: warning: ${problem}\n`);
  if (!summary.complete) ctx.stderr.write('inferbench: warning: a shard was incomplete: complete is false\n');
  if (!args.json && !args.quiet) ctx.stdout.write(`report: ${outDir}\n`);
  const failed = summary.thresholds.filter((threshold) => !threshold.passed);
  if (failed.length > 0) {
    ctx.stderr.write(`inferbench: ${failed.length} threshold(s) failed on the merged result\n`);
    return EXIT.thresholdFailed;
  }
  return EXIT.ok;
}
