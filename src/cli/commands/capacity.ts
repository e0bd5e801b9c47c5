/**
 * `inferbench capacity <profile>`: for every group the highest load under the capacity SLO, with a 95%
 * interval (runner/capacity/run-capacity.ts), written as a run folder: capacity-steps.json first (every
 * step's blocks: what --reevaluate reads), then summary.json (each group at its highest passing step, and
 * `capacity`), summary.csv, report.html and capacity.csv. `--reevaluate DIR --slo key=value...` answers a
 * new SLO from a search's stored steps without sending a request. Exit 99 when a group is below
 * `capacity.min_capacity`, 4 when --max-cost refused or stopped it, 130 when interrupted.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { InferbenchError } from '../../errors.js';
import {
  type CapacityStepsFile,
  type CapacitySummary,
  capacityStepsFileSchema,
} from '../../metrics/capacity-summary.js';
import type { ResolvedProfile } from '../../profile/resolved-profile.js';
import { writeCapacityCsv } from '../../report/capacity/capacity-csv.js';
import { formatCapacityTable } from '../../report/capacity/capacity-table.js';
import { formatCapacityChart } from '../../report/capacity/capacity-chart.js';
import { loadRun } from '../../report/compare/load-run.js';
import { checkResultsFile } from '../../report/results-file-check.js';
import { createRunFolder, writeRunFiles } from '../../report/run-folder.js';
import { buildRunSummary } from '../../runner/build-run-summary.js';
import { capacityRunResult, capacitySummary } from '../../runner/capacity/capacity-result.js';
import { capacityStepsFile, reevaluateCapacity } from '../../runner/capacity/reevaluate.js';
import { runCapacity } from '../../runner/capacity/run-capacity.js';
import { capacityObjectives, capacityServerObjectives } from '../../runner/capacity/objectives.js';
import { isServerObjectiveKey } from '../../aggregate/capacity/server-objective.js';
import { makeRunId } from '../../runner/run-id.js';
import { defaultRunnerDeps } from '../../runner/runner-deps.js';
import { nowUs, systemClock } from '../../util/clock.js';
import { loadHfTokenizer } from '../../util/hf-tokenizer.js';
import { o200kTokenizer } from '../../util/tokenizer.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { announceConnection, loadProfileArgument, openTarget, type TargetArgs } from '../target-session.js';
import { type MaxCostStop, parseMaxCost, prepareCostGuard, withinBudget } from '../cost-guard.js';
import { formatUsd } from '../../report/summary-table.js';
import { inferbenchVersion } from '../version.js';
import { monotonicAnchorMs } from '../thread-clock.js';
import { bottleneckRemedy, parseWorkers, workerThreadScript } from '../worker-count.js';
import type { CommandImplementation } from './command.js';

export const CAPACITY_STEPS_JSON = 'capacity-steps.json';

interface CapacityArgs extends TargetArgs {
  out?: string;
  quiet: boolean;
  json: boolean;
  steps: boolean;
  chart: boolean;
  reevaluate?: string;
  slo?: string | string[];
  confirm?: string;
  'max-cost'?: string;
  workers?: string;
}

export const capacityCommand: CommandImplementation = (ctx) => ({
  builder: (command: Argv) =>
    command
      .positional('profile', { type: 'string', describe: 'Profile YAML file (not with --reevaluate)' })
      .option('base-url', { type: 'string', describe: 'Target base URL (without /v1); overrides target.base_url' })
      .option('api-key-env', { type: 'string', describe: 'Environment variable holding the API key' })
      .option('out', { type: 'string', describe: 'Write into this folder instead of reports/<run-id>/' })
      .option('set', { type: 'string', describe: 'Override a profile field: --set path=value (repeatable)' })
      .option('server-metrics', {
        type: 'string',
        describe:
          "Scrape the target's Prometheus endpoint at URL during every step (repeatable; adds to target.server_metrics with the defaults)",
      })
      .option('quiet', { type: 'boolean', default: false, describe: 'Print only the report path and errors' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the capacity result as JSON' })
      .option('steps', { type: 'boolean', default: false, describe: 'Print every step with its decision' })
      .option('chart', {
        type: 'boolean',
        default: false,
        describe: "Draw each group's search as a text chart: the binding objective's share over its limit by load",
      })
      .option('reevaluate', {
        type: 'string',
        describe: 'Answer a new SLO (--slo) from the stored steps of this capacity run folder, sending nothing',
      })
      .option('confirm', {
        type: 'string',
        describe: 'Confirm the capacities of this earlier capacity run folder: one step on each side of each',
      })
      .option('workers', {
        type: 'string',
        describe:
          "Send every step's load from N worker threads (or auto: one per core, leaving one on machines with more than two), for loads one thread cannot send on time",
      })
      .option('max-cost', {
        type: 'string',
        describe:
          'USD: refuse the search when its estimated spend exceeds this, stop it when its spend reaches it (exit 4 either way)',
      })
      .option('slo', {
        type: 'string',
        describe: 'With --reevaluate: an objective key=limit, e.g. --slo ttft_ms.p99=300ms (repeatable)',
      }),
  handler: async (argv) => {
    ctx.exitCode = await runCapacityCommand(argv as unknown as CapacityArgs, ctx);
  },
});

async function runCapacityCommand(args: CapacityArgs, ctx: CliContext): Promise<number> {
  if (args.reevaluate !== undefined) return reevaluate(args, ctx);
  if (args.profile === undefined)
    throw new InferbenchError('BAD_USAGE', 'capacity needs a profile (or --reevaluate DIR --slo ...)', {
      hint: 'e.g. inferbench capacity profiles/capacity.yaml',
    });
  const maxCostUsd = parseMaxCost(args['max-cost']);
  const workers = args.workers === undefined ? 1 : parseWorkers(args.workers);
  const loaded = loadProfileArgument(args, ctx);
  const objectives = capacityObjectives(loaded.capacity.slo, 'capacity.slo (or slo)');
  const serverObjectives = capacityServerObjectives(loaded.capacity.slo, 'capacity.slo (or slo)');
  const previous = args.confirm === undefined ? new Map<string, number>() : await previousCapacities(args.confirm, ctx);
  const tokenizer = loaded.target.tokenizer ? await loadHfTokenizer(loaded.target.tokenizer) : o200kTokenizer();
  const session = await openTarget(loaded, args, ctx);
  // Its `models:` selectors resolved: every step searches the same models.
  const profile = session.profile;
  const quiet = args.quiet || args.json;
  try {
    if (!quiet)
      ctx.stderr.write(
        `inferbench: capacity of ${profile.name}${workers > 1 ? ` in ${workers} worker threads` : ''} against ${session.description}\n`,
      );
    announceConnection(ctx, session, quiet);
    const cost = await prepareCostGuard({ profile, session, ctx, maxCostUsd, quiet: args.quiet, kind: 'capacity' });
    if (cost === null) return EXIT.budget;
    const startedAtWallMs = Date.now();
    const search = await withinBudget(cost, ctx.interrupt, (interrupt) =>
      runCapacity(
        {
          run: {
            target: { baseUrl: session.target, apiKey: session.apiKey, proxy: session.proxy },
            env: {
              clock: systemClock,
              cpuProbe: () => process.cpuUsage(),
              version: inferbenchVersion(),
              tokenizer,
              deps: cost.deps,
            },
          },
          interrupt,
          // Each step scrapes target.server_metrics over its own window (runner/server-scraping.ts).
          serverMetricsEnv: ctx.env,
          profile,
          spec: profile.capacity,
          objectives,
          serverObjectives,
          workers:
            workers > 1 ? { count: workers, script: workerThreadScript(), clockAnchorMs: monotonicAnchorMs() } : null,
        },
        quiet ? {} : progressEvents(ctx),
        previous,
      ),
    );
    const groups = search.value;
    const summary = capacitySummary(groups, objectives, profile.capacity, serverObjectives);
    const runId = makeRunId(startedAtWallMs, `${profile.name}-capacity`);
    const runDir = await createRunFolder(
      resolve(ctx.cwd, 'reports'),
      args.out ? resolve(ctx.cwd, args.out) : null,
      runId,
    );
    // Every measured step is on disk before anything else is written.
    await writeFile(join(runDir, CAPACITY_STEPS_JSON), JSON.stringify(capacityStepsFile(runId, groups, summary)));
    const result = capacityRunResult(profile, groups, {
      workloadHash: defaultRunnerDeps.workloadHash(profile),
      startedAtWallMs,
      endedAtWallMs: Date.now(),
      complete: !search.aborted,
      interrupted: ctx.interrupt.aborted,
      tokenizer: tokenizer.name,
      workers,
      ...(search.stopped === null ? {} : { stopped: search.stopped }),
    });
    // The whole search's spend (every step and the calibration), not only the operating points'.
    const spent = cost.meter.runCost(nowUs());
    const runSummary = {
      ...buildRunSummary(result, runIdentity(runId, session), []),
      capacity: summary,
      ...(spent ? { cost: spent } : {}),
    };
    const { problems } = await writeRunFiles(runDir, { summary: runSummary, timeSeries: [] });
    await writeCapacityCsv(runDir, summary);
    // A failing metrics endpoint (each warning once over the steps) never fails the search.
    for (const warning of [...problems, ...(result.serverMetrics?.warnings ?? [])])
      ctx.stderr.write(`inferbench: warning: ${warning}\n`);
    // A step the harness spoiled is run again, and ends the search if it stays spoiled: say what helps.
    if (runSummary.harness.client_bottleneck) ctx.stderr.write(`inferbench: warning: ${bottleneckRemedy(workers)}\n`);
    return finish(summary, runDir, args, ctx, search.stopped);
  } finally {
    await session.stop();
  }
}

/** Who wrote the search's summary.json, against what. */
function runIdentity(runId: string, session: Awaited<ReturnType<typeof openTarget>>) {
  return {
    runId,
    version: inferbenchVersion(),
    baseUrl: session.target,
    embeddedEmulator: session.emulator !== null,
    proxy: session.proxy,
  };
}

/** Every step as it is decided, on stderr: the search is long and its decisions are the point. */
function progressEvents(ctx: CliContext) {
  return {
    onGroupStart: (unit: string, mode: string, start: number, limits: { capMs: number; raised: string | null }) =>
      ctx.stderr.write(
        `capacity: ${unit}: searching ${mode === 'rate' ? 'the arrival rate' : 'the streams'} from ${start}, steps of at most ${limits.capMs / 1000} s${limits.raised === null ? '' : ` (start raised: ${limits.raised})`}\n`,
      ),
    onStep: (unit: string, step: { step: number; load: number; outcome: string; reason: string; durationMs: number }) =>
      ctx.stderr.write(
        `capacity: ${unit} step ${step.step}: ${step.load} ${step.outcome.toUpperCase()} in ${(step.durationMs / 1000).toFixed(1)} s: ${step.reason}\n`,
      ),
  };
}

function finish(
  summary: CapacitySummary,
  runDir: string | null,
  args: CapacityArgs,
  ctx: CliContext,
  budgetStop: MaxCostStop | null = null,
): number {
  if (args.json) ctx.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else if (!args.quiet) {
    ctx.stdout.write(`\n${formatCapacityTable(summary, { steps: args.steps })}`);
    if (args.chart) for (const chart of capacityCharts(summary)) ctx.stdout.write(`\n${chart}\n`);
  }
  if (runDir !== null) (args.json ? ctx.stderr : ctx.stdout).write(`report: ${runDir}\n`);
  if (budgetStop !== null) {
    ctx.stderr.write(
      `inferbench: stopped at ${budgetStop.at_s} s: the spend ${formatUsd(budgetStop.spent_usd)} reached --max-cost ${formatUsd(budgetStop.max_cost_usd)}; the steps measured so far are written\n`,
    );
    return EXIT.budget;
  }
  if (ctx.interrupt.aborted) {
    ctx.stderr.write('inferbench: interrupted; the steps measured so far are written\n');
    return EXIT.interrupted;
  }
  const below = summary.groups.filter((group) => group.below_min);
  for (const group of below)
    ctx.stderr.write(
      `inferbench: capacity of ${group.group} is below min_capacity ${summary.settings.min_capacity} ${group.unit}\n`,
    );
  return below.length > 0 ? EXIT.thresholdFailed : EXIT.ok;
}

/** `--confirm DIR`: group key -> the capacity an earlier search found (groups without one are searched anew). */
async function previousCapacities(dir: string, ctx: CliContext): Promise<Map<string, number>> {
  // summary.json checked whole against the result schema, as compare and merge read it.
  const { summaryPath: path, summary } = await loadRun(isAbsolute(dir) ? dir : resolve(ctx.cwd, dir));
  const groups = summary.capacity?.groups;
  if (groups === undefined)
    throw new InferbenchError('BAD_RESULTS', `${path} holds no capacity result`, {
      hint: '--confirm takes the folder of an earlier `inferbench capacity`',
    });
  return new Map(groups.flatMap((g) => (g.capacity === null ? [] : [[g.group, g.capacity] as const])));
}

/** `--reevaluate DIR --slo k=v...`: the stored steps under a new SLO. */
async function reevaluate(args: CapacityArgs, ctx: CliContext): Promise<number> {
  const dir = isAbsolute(args.reevaluate as string)
    ? (args.reevaluate as string)
    : resolve(ctx.cwd, args.reevaluate as string);
  const file = await readCapacitySteps(join(dir, CAPACITY_STEPS_JSON));
  const pairs = args.slo === undefined ? [] : Array.isArray(args.slo) ? args.slo : [args.slo];
  const slo: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1)
      throw new InferbenchError('BAD_USAGE', `--slo ${JSON.stringify(pair)} is not key=limit`, {
        hint: 'e.g. --slo ttft_ms.p99=300ms',
      });
    slo[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  // Without --slo: the search's own SLO (the same decisions as online).
  if (pairs.length === 0)
    for (const objective of file.objectives)
      slo[objective.key] =
        objective.key === 'error_rate'
          ? `${objective.allowed * 100}%`
          : isServerObjectiveKey(objective.key)
            ? `${objective.limit}`
            : `${objective.limit}ms`;
  const where = pairs.length > 0 ? '--slo' : `the SLO of ${dir}`;
  const objectives = capacityObjectives(slo, where);
  const serverObjectives = capacityServerObjectives(slo, where);
  const settings = file.settings;
  const spec = {
    alpha: settings.alpha,
    beta: settings.beta,
    indifference: settings.indifference,
    blockMs: settings.block_ms,
    seed: settings.seed,
  };
  const groups = reevaluateCapacity(file, objectives, spec, serverObjectives);
  const summary = capacitySummary(
    groups,
    objectives,
    {
      ...spec,
      slo,
      minCapacity: settings.min_capacity,
      resolution: settings.resolution,
      maxSteps: settings.max_steps,
      stepDurationMs: settings.step_duration_ms,
      maxStepDurationMs: settings.max_step_duration_ms ?? null,
      stepWarmupMs: settings.step_warmup_ms ?? null,
      start: null,
      maxLoad: Number.POSITIVE_INFINITY,
      mix: null,
    } satisfies ResolvedProfile['capacity'],
    serverObjectives,
  );
  let outDir: string | null = null;
  if (args.out) {
    outDir = resolve(ctx.cwd, args.out);
    await mkdir(outDir, { recursive: true });
    await writeFile(join(outDir, 'capacity.json'), `${JSON.stringify(summary, null, 2)}\n`);
    await writeCapacityCsv(outDir, summary);
  }
  return finish(summary, outDir, args, ctx);
}

function capacityCharts(summary: CapacitySummary): string[] {
  return summary.groups.flatMap((group) => formatCapacityChart(group, summary.objectives) ?? []);
}

/** capacity-steps.json read and checked whole: a wrong value is BAD_RESULTS naming the file and its place. */
async function readCapacitySteps(path: string): Promise<CapacityStepsFile> {
  const hint = 'give the folder a capacity search wrote, unedited';
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new InferbenchError('BAD_RESULTS', `${path} cannot be read: ${(error as Error).message}`, { hint });
  }
  return checkResultsFile(capacityStepsFileSchema, value, { path, what: 'a capacity-steps.json', hint });
}
