/**
 * `inferbench trend <run-dir>...`: many runs of one profile (one per commit, or downloaded CI artifacts) in
 * order, each compared with the one before as `compare` does; writes trend.html and trend.csv (default
 * reports/trend/) and prints the change points. Exit 0 when written (a trend reports, it does not gate:
 * `compare` gates), 2 on bad input or runs whose workloads differ (without --force).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { loadRequestValues, loadRun } from '../../report/compare/load-run.js';
import { parseToleranceFlags } from '../../report/compare/tolerance.js';
import { formatChange, formatPValue } from '../../report/compare/format-values.js';
import { findRunPaths } from '../../report/trend/find-runs.js';
import { formatTrendCsv, TREND_CSV } from '../../report/trend/trend-csv.js';
import { writeTrendHtml } from '../../report/trend/trend-document.js';
import { buildTrend } from '../../report/trend/trend-runs.js';
import type { TrendOrder, TrendResult } from '../../report/trend/trend-runs.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import type { CommandImplementation } from './command.js';

interface TrendArgs {
  runs: string[];
  out?: string;
  order: TrendOrder;
  alpha: number;
  tolerance?: string[];
  correction: 'holm' | 'none';
  force: boolean;
  quiet: boolean;
  json: boolean;
}

/** Where trend.html and trend.csv go without --out, relative to the working directory. */
export const DEFAULT_TREND_DIR = join('reports', 'trend');

export const trendCommand: CommandImplementation = (ctx) => ({
  builder: (command: Argv) =>
    command
      .positional('runs', {
        type: 'string',
        array: true,
        describe: 'Run directories (or summary.json files), or folders whose subfolders are run directories',
        demandOption: true,
      })
      .option('out', {
        type: 'string',
        describe: `Directory for trend.html and trend.csv (default: ${DEFAULT_TREND_DIR}/ in the working directory)`,
      })
      .option('order', {
        choices: ['time', 'given'] as const,
        default: 'time' as const,
        describe: "Order of the runs: by each run's started_at, or as given on the command line",
      })
      .option('alpha', {
        type: 'number',
        default: 0.05,
        describe: 'Significance level of each neighbour comparison, as in compare',
      })
      .option('tolerance', {
        type: 'string',
        array: true,
        nargs: 1,
        describe: 'metric=tolerance as in compare, e.g. ttft_ms.p99=10% (repeatable)',
      })
      .option('correction', {
        choices: ['holm' as const, 'none' as const],
        default: 'holm' as const,
        describe: 'Multiple-testing correction over the tests of each neighbour comparison',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'Compare neighbours even when their workloads differ (each difference is listed in trend.html)',
      })
      .option('quiet', { type: 'boolean', default: false, describe: 'Print only the paths written' })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print the runs and change points as JSON',
      }),
  handler: async (argv) => {
    ctx.exitCode = await runTrend(argv as unknown as TrendArgs, ctx);
  },
});

async function runTrend(args: TrendArgs, ctx: CliContext): Promise<number> {
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(ctx.cwd, p));
  const paths = findRunPaths(args.runs.map(abs));
  const loaded = await Promise.all(paths.map((path) => loadRun(path)));
  const inputs = await Promise.all(
    loaded.map(async (run) => ({ dir: run.dir, summary: run.summary, requests: await loadRequestValues(run.dir) })),
  );
  const trend = buildTrend(inputs, {
    order: args.order,
    alpha: args.alpha,
    tolerances: parseToleranceFlags(args.tolerance ?? []),
    correction: args.correction,
    force: args.force,
  });
  const outDir = abs(args.out ?? DEFAULT_TREND_DIR);
  await mkdir(outDir, { recursive: true });
  const htmlPath = await writeTrendHtml(outDir, trend);
  const csvPath = join(outDir, TREND_CSV);
  await writeFile(csvPath, formatTrendCsv(trend), 'utf8');
  if (args.json) {
    ctx.stdout.write(`${JSON.stringify(trendJson(trend, htmlPath, csvPath), null, 2)}\n`);
  } else {
    if (!args.quiet) ctx.stdout.write(formatTrendText(trend));
    ctx.stdout.write(`trend.html: ${htmlPath}\ntrend.csv: ${csvPath}\n`);
  }
  return EXIT.ok;
}

function formatTrendText(trend: TrendResult): string {
  const lines = [`${trend.runs.length} runs, in order:`];
  for (const run of trend.runs) lines.push(`  ${run.position}. ${run.name}  ${run.startedAt}  ${run.dir}`);
  if (trend.changePoints.length === 0) lines.push('no change point: no run differs significantly from the one before');
  else lines.push(`${trend.changePoints.length} change point(s):`);
  for (const c of trend.changePoints) {
    const run = trend.runs[c.position - 1];
    lines.push(
      `  run ${c.position} (${run?.name ?? '?'}) ${c.kind.toUpperCase()} ${c.group} ${c.metricId}: ${formatChange(c.comparison)}, p=${formatPValue(c.comparison.pAdjusted)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function trendJson(trend: TrendResult, htmlPath: string, csvPath: string): unknown {
  return {
    runs: trend.runs,
    change_points: trend.changePoints.map((c) => ({
      position: c.position,
      run: trend.runs[c.position - 1]?.name ?? null,
      group: c.group,
      metric: c.metricId,
      kind: c.kind,
      previous: c.comparison.baseline,
      value: c.comparison.candidate,
      p_adjusted: c.comparison.pAdjusted,
      reason: c.comparison.reason,
    })),
    trend_html: htmlPath,
    trend_csv: csvPath,
  };
}
