/**
 * `inferbench compare <baseline> <candidate>`: per group and metric the change between two runs, its
 * significance and a verdict; exit 99 on a significant regression beyond tolerance, 0 otherwise, 2 on
 * bad input or (without --force) runs whose workloads differ. The runs' targets may differ (two
 * deployments) and are shown side by side; `--pair` matches groups whose model names differ. Writes compare.html, and on request JUnit
 * XML and markdown; appends the markdown to $GITHUB_STEP_SUMMARY when that is set.
 */
import { mkdir } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { compareRuns } from '../../report/compare/compare-runs.js';
import { writeCompareHtml } from '../../report/compare/compare-document.js';
import { formatCompareTable } from '../../report/compare/compare-table.js';
import { loadRequestValues, loadRun } from '../../report/compare/load-run.js';
import { parseToleranceFlags } from '../../report/compare/tolerance.js';
import { formatCompareJunit } from '../../report/junit.js';
import { formatCompareMarkdown } from '../../report/markdown.js';
import type { CliContext } from '../context.js';
import { writeCiOutputs } from '../ci-outputs.js';
import { EXIT } from '../exit-codes.js';
import type { CommandImplementation } from './command.js';

interface CompareArgs {
  baseline: string;
  candidate: string;
  alpha: number;
  tolerance?: string[];
  force: boolean;
  pair?: string[];
  correction: 'holm' | 'none';
  out?: string;
  junit?: string;
  markdown?: string;
  quiet: boolean;
  json: boolean;
}

export const compareCommand: CommandImplementation = (ctx) => ({
  builder: (command: Argv) =>
    command
      .positional('baseline', {
        type: 'string',
        describe: 'Baseline run directory or summary.json',
        demandOption: true,
      })
      .positional('candidate', {
        type: 'string',
        describe: 'Candidate run directory or summary.json',
        demandOption: true,
      })
      .option('alpha', {
        type: 'number',
        default: 0.05,
        describe: 'Significance level: a change counts only when p < alpha',
      })
      .option('tolerance', {
        type: 'string',
        array: true,
        nargs: 1,
        describe:
          'metric=tolerance, e.g. ttft_ms.p99=10%, e2e_ms.p50=50ms, error_rate=0.01, itl_ms.p99=off (repeatable)',
      })
      .option('correction', {
        choices: ['holm', 'none'] as const,
        default: 'holm' as const,
        describe: 'Multiple-testing correction of the p-values over all group x metric tests',
      })
      .option('pair', {
        type: 'string',
        array: true,
        // One value per flag, so `--pair a=b <baseline> <candidate>` leaves the runs positional.
        nargs: 1,
        describe:
          'baseline_group=candidate_group: compare these groups (keys scenario/model/tier) although their model names differ, e.g. steady/llama/-=steady/llama-3/- (repeatable)',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe:
          'Compare even when the workloads differ (workload hash, models, tiers), with a loud warning; targets may always differ',
      })
      .option('out', {
        type: 'string',
        describe: 'Directory for compare.html (default: the candidate run directory)',
      })
      .option('junit', { type: 'string', describe: 'Write JUnit XML here (one testcase per group x metric)' })
      .option('markdown', { type: 'string', describe: 'Write the markdown summary here' })
      .option('quiet', { type: 'boolean', default: false, describe: 'Print only the verdict line' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the comparison as JSON' }),
  handler: async (argv) => {
    ctx.exitCode = await runCompare(argv as unknown as CompareArgs, ctx);
  },
});

async function runCompare(args: CompareArgs, ctx: CliContext): Promise<number> {
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(ctx.cwd, p));
  const [baseline, candidate] = await Promise.all([loadRun(abs(args.baseline)), loadRun(abs(args.candidate))]);
  const [baselineRequests, candidateRequests] = await Promise.all([
    loadRequestValues(baseline.dir),
    loadRequestValues(candidate.dir),
  ]);
  const result = compareRuns(
    { dir: baseline.dir, summary: baseline.summary, requests: baselineRequests },
    { dir: candidate.dir, summary: candidate.summary, requests: candidateRequests },
    {
      alpha: args.alpha,
      tolerances: parseToleranceFlags(args.tolerance ?? []),
      force: args.force,
      correction: args.correction,
      pairs: args.pair ?? [],
    },
  );
  if (result.forced) {
    ctx.stderr.write(
      `\n!!! WARNING: --force: these runs did not send the same workload; the comparison may mislead:\n`,
    );
    for (const m of result.mismatches) ctx.stderr.write(`!!!   ${m}\n`);
    ctx.stderr.write('\n');
  }
  for (const warning of result.warnings) ctx.stderr.write(`inferbench: warning: ${warning}\n`);
  const htmlDir = args.out ? abs(args.out) : candidate.dir;
  await mkdir(htmlDir, { recursive: true });
  const htmlPath = await writeCompareHtml(htmlDir, result, baseline.summary, candidate.summary);
  await writeCiOutputs(
    args,
    { junit: () => formatCompareJunit(result), markdown: () => formatCompareMarkdown(result) },
    ctx,
  );
  if (args.json) {
    ctx.stdout.write(`${JSON.stringify({ ...result, compare_html: htmlPath }, null, 2)}\n`);
  } else {
    const table = formatCompareTable(result);
    ctx.stdout.write(
      args.quiet ? `${table.trimEnd().split('\n').pop() ?? ''}\n` : `${table}\ncompare.html: ${htmlPath}\n`,
    );
  }
  if (result.regressions > 0) return EXIT.thresholdFailed;
  // Regressions the candidate's own client may explain: not the target's, and not a pass either.
  return result.notCalled > 0 ? EXIT.invalid : EXIT.ok;
}
