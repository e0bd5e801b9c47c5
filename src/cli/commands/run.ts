/**
 * `inferbench run <profile>`: loads the profile, starts the embedded emulator when there is no target,
 * runs it (cli/execute-run.ts), prints the progress line, the summary table, threshold verdicts and
 * where the report is, and maps the outcome to an exit code (cli/exit-codes.ts).
 */
import { basename, extname, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { InferbenchError } from '../../errors.js';
import { systemClock } from '../../util/clock.js';
import { executeRun } from '../execute-run.js';
import type { RunOutcome } from '../execute-run.js';
import { formatSummaryJson } from '../../report/summary-json.js';
import { runRepeated } from '../../report/repeat-runs.js';
import { formatRepeatTable } from '../../report/repeat-summary.js';
import { makeRunId } from '../../runner/run-id.js';
import type { RunEvents } from '../../runner/run-events.js';
import { parseShard } from '../../schedule/shard.js';
import type { ShardSpec } from '../../schedule/shard.js';
import { formatRunCost, formatSummaryTable, formatThresholds, formatUsd } from '../../report/summary-table.js';
import { createProgressLine } from '../../report/progress-line.js';
import type { CliContext } from '../context.js';
import { writeCiOutputs } from '../ci-outputs.js';
import { formatRepeatJunit, formatRunJunit } from '../../report/run-junit.js';
import { formatRepeatMarkdown, formatRunMarkdown } from '../../report/run-markdown.js';
import { announceConnection, loadProfileArgument, openTarget } from '../target-session.js';
import { parseMaxCost, prepareCostGuard } from '../cost-guard.js';
import { EXIT } from '../exit-codes.js';
import { invalidEvidence } from '../../aggregate/run-validity.js';
import { describeDecidability } from '../../aggregate/decided-stop.js';
import type { RunStopped } from '../../metrics/run-summary.js';
import type { ResolvedProfile } from '../../profile/resolved-profile.js';
import { inferbenchVersion } from '../version.js';
import { monotonicAnchorMs } from '../thread-clock.js';
import { bottleneckRemedy, parseWorkers, workerThreadScript } from '../worker-count.js';
import {
  checkLiveViewFlags,
  checkLiveViewsOf,
  DEFAULT_DASHBOARD_PORT,
  refuseAnyPortWithRepeat,
  startLiveViews,
} from '../live-views.js';
import { attachLiveViews, combineRunEvents, type LiveView } from '../live-view.js';
import type { CommandImplementation } from './command.js';

interface RunArgs {
  profile: string;
  'base-url'?: string;
  'api-key-env'?: string;
  out?: string;
  set?: string | string[];
  'server-metrics'?: string | string[];
  quiet: boolean;
  json: boolean;
  repeat?: number;
  shard?: string;
  'start-at'?: string;
  workers?: string;
  'max-cost'?: string;
  junit?: string;
  markdown?: string;
  'metrics-port'?: string;
  'metrics-host'?: string;
  dashboard?: string;
  'fail-on'?: string;
  'stop-when-decided'?: boolean;
  label?: string;
}

export const runCommand: CommandImplementation = (ctx) => ({
  builder: (command: Argv) =>
    command
      .positional('profile', { type: 'string', describe: 'Profile YAML file', demandOption: true })
      .option('base-url', { type: 'string', describe: 'Target base URL (without /v1); overrides target.base_url' })
      .option('api-key-env', {
        type: 'string',
        describe: 'Environment variable holding the API key (default: target.api_key_env, else INFERENCE_API_KEY)',
      })
      .option('out', { type: 'string', describe: 'Write the run into this folder instead of reports/<run-id>/' })
      // Not `array: true`: an array option would swallow the profile path in `run --set a=1 profile.yaml`;
      // repeated flags still arrive as an array.
      .option('set', { type: 'string', describe: 'Override a profile field: --set path=value (repeatable)' })
      .option('server-metrics', {
        type: 'string',
        describe:
          "Scrape the target's Prometheus endpoint at URL beside the run (repeatable; adds to target.server_metrics with the defaults)",
      })
      .option('fail-on', {
        type: 'string',
        choices: ['invalid'],
        describe:
          'invalid: exit 5 when the run is not valid evidence (the harness was its own bottleneck, or arrivals were dropped at max_concurrency); profile: fail_on_invalid',
      })
      .option('stop-when-decided', {
        type: 'boolean',
        describe:
          'Stop as soon as every threshold has passed or failed by a sequential test (capacity alpha, beta, indifference); profile: stop_when_decided',
      })
      .option('quiet', { type: 'boolean', default: false, describe: 'Print only the report path and errors' })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print summary.json to stdout and nothing else there',
      })
      .option('repeat', {
        type: 'number',
        default: 1,
        describe: 'Run N times into <out>/repeat-<i>/ and write repeat-summary.json (mean, stddev, 95% CI per metric)',
      })
      .option('shard', {
        type: 'string',
        describe: 'Send only shard i of N (i/N) of every scenario: N shards started together send one run',
      })
      .option('workers', {
        type: 'string',
        describe:
          'Send the load from N worker threads (or auto: one per core, leaving one on machines with more than two); results merged exactly',
      })
      .option('max-cost', {
        type: 'string',
        describe:
          'USD: refuse the run when its estimated spend exceeds this (exit 4, nothing sent), stop it when its spend reaches it (exit 4, results so far written)',
      })
      .option('junit', {
        type: 'string',
        describe: 'Write JUnit XML here: a testsuite per group, a testcase per threshold (CI dashboards)',
      })
      .option('markdown', {
        type: 'string',
        describe: 'Write a markdown summary here (also appended to $GITHUB_STEP_SUMMARY when set)',
      })
      .option('metrics-port', {
        type: 'string',
        describe:
          'Serve Prometheus metrics at http://HOST:PORT/metrics during the run (0: any free port; profile: live.metrics_port)',
      })
      .option('metrics-host', {
        type: 'string',
        describe: 'Address /metrics listens on (default 127.0.0.1; 0.0.0.0 in a pod that Prometheus scrapes)',
      })
      .option('dashboard', {
        type: 'string',
        describe: `Serve a live dashboard of the run at http://127.0.0.1:PORT/ (default port ${DEFAULT_DASHBOARD_PORT}; 0: any free port)`,
      })
      .option('label', {
        type: 'string',
        describe:
          'What this run measured (a commit, a version), recorded in summary.json as `label`; `trend` names and orders runs by it (GITHUB_SHA is recorded as `commit` when set)',
      })
      .option('start-at', {
        type: 'string',
        describe: 'Wait after the model check until this UTC time (ISO 8601, e.g. 2026-11-23T10:00:00Z), then start',
      }),
  handler: async (argv) => {
    ctx.exitCode = await runRun(argv as unknown as RunArgs, ctx);
  },
});

/**
 * One run. `ciOutputs` false: a run of `--repeat`, which writes no JUnit, markdown or step summary of its
 * own (the repeat writes one for all its runs).
 */
async function runRun(args: RunArgs, ctx: CliContext, ciOutputs = true): Promise<number> {
  // Flags first: a typo must not cost an emulator start or a pre-flight.
  const shard = args.shard === undefined ? null : parseShard(args.shard);
  const startAtWallMs = args['start-at'] === undefined ? null : parseStartAt(args['start-at']);
  const workers = args.workers === undefined ? 1 : parseWorkers(args.workers);
  const maxCostUsd = parseMaxCost(args['max-cost']);
  checkLiveViewFlags(args);
  if ((args.repeat ?? 1) !== 1) return runRepeat(args, ctx);
  const loaded = withStopWhenDecided(loadProfileArgument(args, ctx), args['stop-when-decided']);
  checkLiveViewsOf(args, loaded);
  if ((workers > 1 || shard !== null) && loaded.scenarios.some((scenario) => scenario.sweep !== undefined))
    throw new InferbenchError(
      'BAD_USAGE',
      'a sweep (load mode sweep) runs in one process: not with --workers or --shard',
      {
        hint: 'its rates are measured by its own first phases; run it without --workers and --shard',
      },
    );
  const session = await openTarget(loaded, args, ctx);
  // Its `models:` selectors resolved against the target (once, for every worker and shard).
  const profile = session.profile;
  let views: LiveView[] = [];
  try {
    const { target, apiKey, emulator, proxy } = session;
    const quiet = args.quiet || args.json;
    const progress = quiet
      ? null
      : createProgressLine(ctx.stderr, { tty: Boolean((ctx.stderr as { isTTY?: boolean }).isTTY) });
    if (!quiet)
      ctx.stderr.write(
        `inferbench: running ${profile.name}${shard ? ` (shard ${shard.index}/${shard.count})` : ''}${workers > 1 ? ` in ${workers} worker threads` : ''} against ${session.description}\n`,
      );
    announceConnection(ctx, session, quiet);
    if (!quiet && profile.stopWhenDecided === true)
      for (const line of describeDecidability(profile)) ctx.stderr.write(`inferbench: ${line}\n`);
    const share = shard === null ? 1 : 1 / shard.count;
    const cost = await prepareCostGuard({ profile, session, ctx, maxCostUsd, quiet: args.quiet, kind: 'run', share });
    if (cost === null) return EXIT.budget;
    views = await startLiveViews(args, profile, shard, ctx);
    for (const view of views) ctx.stderr.write(`inferbench: ${view.description}\n`);

    const outcome = await executeRun({
      profile,
      target: { baseUrl: target, apiKey, proxy },
      control: { interrupt: ctx.interrupt, budget: cost.budget, shard, startAtWallMs, serverMetricsEnv: ctx.env },
      env: {
        clock: systemClock,
        cpuProbe: () => process.cpuUsage(),
        version: inferbenchVersion(),
        deps: attachLiveViews(cost.deps, views),
        events: combineRunEvents([
          ...(progress ? [{ onTick: (tick) => progress.update(tick) } satisfies RunEvents] : []),
          startEvents(ctx, shard, quiet),
          ...views.map((view) => view.events),
        ]),
      },
      reportsDir: resolve(ctx.cwd, 'reports'),
      outDir: args.out ? resolve(ctx.cwd, args.out) : null,
      embeddedEmulator: emulator !== null,
      prices: cost.book,
      label: { label: args.label?.trim() || null, commit: ctx.env['GITHUB_SHA']?.trim() || null },
      workers:
        workers > 1 ? { count: workers, script: workerThreadScript(), clockAnchorMs: monotonicAnchorMs() } : null,
    });
    progress?.finish();
    if (ciOutputs)
      await writeCiOutputs(
        args,
        { junit: () => formatRunJunit(outcome.summary), markdown: () => formatRunMarkdown(outcome.summary) },
        ctx,
      );
    const exitCode = printOutcome(outcome, args, ctx);
    // The results are on disk and printed: the views show the end (a dashboard its summary, /metrics its
    // last scrape, which may keep the run up to live.metrics_linger).
    await Promise.allSettled(views.map((view) => view.finish(outcome.summary)));
    return exitCode;
  } finally {
    await Promise.allSettled(views.map((view) => view.close()));
    await session.stop();
  }
}

/** `--repeat N`: N ordinary runs into <out>/repeat-<i>/, then their aggregate (report/repeat-runs.ts). */
async function runRepeat(args: RunArgs, ctx: CliContext): Promise<number> {
  const n = args.repeat as number;
  if (!Number.isInteger(n) || n < 1 || n > 100) {
    throw new InferbenchError('BAD_USAGE', `--repeat ${n} must be a whole number from 1 to 100.`, {
      hint: 'e.g. --repeat 5',
    });
  }
  refuseAnyPortWithRepeat(args, n, loadProfileArgument(args, ctx));
  const name = `${basename(args.profile, extname(args.profile))}-repeat`;
  const outDir = args.out ? resolve(ctx.cwd, args.out) : resolve(ctx.cwd, 'reports', makeRunId(Date.now(), name));
  const inner: RunArgs = { ...args, repeat: 1, json: false, quiet: args.quiet || args.json };
  const outcome = await runRepeated(n, outDir, (dir, i) => {
    if (!inner.quiet) ctx.stderr.write(`inferbench: repeat ${i} of ${n}\n`);
    // --start-at is when the first repeat begins; the others follow it.
    const startAt = i === 1 ? args['start-at'] : undefined;
    // Its runs write no CI outputs: the JUnit, markdown and step summary below cover all of them, once.
    return runRun({ ...inner, out: dir, 'start-at': startAt }, ctx, false);
  });
  const profileName = outcome.summary.profile || basename(args.profile, extname(args.profile));
  await writeCiOutputs(
    args,
    {
      junit: () => formatRepeatJunit(profileName, outcome.repeats),
      markdown: () => formatRepeatMarkdown(profileName, outcome.repeats),
    },
    ctx,
  );
  if (args.json) ctx.stdout.write(`${JSON.stringify(outcome.summary, null, 2)}\n`);
  else if (!args.quiet) ctx.stdout.write(`\n${formatRepeatTable(outcome.summary)}`);
  ctx.stderr.write(`repeat summary: ${outcome.path}\n`);
  return outcome.exitCode;
}

function printOutcome(outcome: RunOutcome, args: RunArgs, ctx: CliContext): number {
  const { summary } = outcome;
  if (args.json) {
    ctx.stdout.write(formatSummaryJson(summary));
  } else if (!args.quiet) {
    ctx.stdout.write(`\n${formatSummaryTable(summary.groups)}`);
    if (summary.cost !== undefined) ctx.stdout.write(formatRunCost(summary.cost));
    if (summary.thresholds.length > 0) ctx.stdout.write(`\nthresholds:\n${formatThresholds(summary.thresholds)}`);
  }
  for (const warning of summary.harness.warnings) ctx.stderr.write(`inferbench: warning: ${warning}\n`);
  if (summary.harness.client_bottleneck)
    ctx.stderr.write(`inferbench: warning: ${bottleneckRemedy(summary.workers ?? 1)}\n`);
  for (const problem of outcome.problems) ctx.stderr.write(`inferbench: warning: ${problem}\n`);
  if (!args.json) ctx.stdout.write(`report: ${outcome.runDir}\n`);
  else ctx.stderr.write(`report: ${outcome.runDir}\n`);

  switch (outcome.verdict) {
    case 'stopped_by_budget': {
      const stopped = summary.stopped?.reason === 'max_cost' ? summary.stopped : null;
      ctx.stderr.write(
        `inferbench: stopped early at ${stopped?.at_s ?? '?'} s: the spend ${formatUsd(stopped?.spent_usd ?? 0)} reached --max-cost ${formatUsd(stopped?.max_cost_usd ?? 0)}; the results measured so far are written (complete: false)\n`,
      );
      return EXIT.budget;
    }
    case 'stopped_by_threshold':
    case 'stopped_by_errors':
      return printStoppedEarly(outcome, ctx);
    case 'interrupted':
      ctx.stderr.write('inferbench: interrupted; the results measured so far are written (complete: false)\n');
      return EXIT.interrupted;
    case 'all_failed': {
      const error = new InferbenchError('RUN_FAILED', describeAllFailed(summary.groups));
      ctx.stderr.write(
        `inferbench: ${error.message}\n  hint: check the target URL, the API key variable and the model names\n`,
      );
      return EXIT.runFailed;
    }
    case 'threshold_failed':
    case 'ok':
      if (summary.stopped?.reason === 'decided' && !args.quiet) printDecided(summary.stopped, ctx);
      return printJudged(outcome, args, ctx);
  }
}

/** A run stopped because every threshold was decided: when, and each sequential verdict. */
function printDecided(stopped: Extract<RunStopped, { reason: 'decided' }>, ctx: CliContext): void {
  ctx.stderr.write(
    `inferbench: stopped at ${stopped.at_s} s: every threshold was decided by its sequential test (alpha ${stopped.alpha}, beta ${stopped.beta}, indifference ${stopped.indifference}); the thresholds are judged on all the data measured\n`,
  );
  for (const t of stopped.thresholds)
    ctx.stderr.write(
      `  ${t.threshold} [${t.group}]: ${t.verdict.toUpperCase()} at ${t.at_s} s, ${t.exceeded} of ${t.requests} exceeded (allowed ${t.allowed})\n`,
    );
}

/** `--stop-when-decided` sets the profile's stop_when_decided. */
function withStopWhenDecided(profile: ResolvedProfile, flag: boolean | undefined): ResolvedProfile {
  return flag === true ? { ...profile, stopWhenDecided: true } : profile;
}

/**
 * A run that ran: exit 5 when it is not valid evidence and that was asked to fail (its failed thresholds
 * printed too, but they judge a load that was not the one stated), else 99 on a failed threshold, else 0.
 */
function printJudged(outcome: RunOutcome, args: RunArgs, ctx: CliContext): number {
  const failOnInvalid = args['fail-on'] === 'invalid' || outcome.result.profile.failOnInvalid === true;
  const invalid = failOnInvalid ? invalidEvidence(outcome.summary) : [];
  for (const failed of outcome.failedThresholds) {
    ctx.stderr.write(
      `inferbench: threshold failed: ${failed.expression} [${failed.group}] (actual ${failed.actual ?? 'none'})\n`,
    );
  }
  if (invalid.length > 0) {
    const asked = args['fail-on'] === 'invalid' ? '--fail-on invalid' : 'the profile sets fail_on_invalid';
    ctx.stderr.write(
      `inferbench: the run is not valid evidence (${asked}):\n${invalid.map((reason) => `  - ${reason}\n`).join('')}`,
    );
    return EXIT.invalid;
  }
  return outcome.failedThresholds.length > 0 ? EXIT.thresholdFailed : EXIT.ok;
}

/**
 * A run stopped early by its profile: an abort_on_fail threshold failed (exit 99, like any failed
 * threshold) or a group passed max_error_rate (exit 3: the run failed), with what was seen.
 */
function printStoppedEarly(outcome: RunOutcome, ctx: CliContext): number {
  const stopped = outcome.summary.stopped;
  const written = 'the results measured so far are written (complete: false)';
  if (stopped?.reason === 'abort_on_fail') {
    ctx.stderr.write(
      `inferbench: stopped early at ${stopped.at_s} s: threshold ${stopped.threshold} failed on ${stopped.group} (actual ${stopped.actual}) and has abort_on_fail; ${written}\n`,
    );
    for (const failed of outcome.failedThresholds)
      ctx.stderr.write(
        `inferbench: threshold failed: ${failed.expression} [${failed.group}] (actual ${failed.actual ?? 'none'})\n`,
      );
    return EXIT.thresholdFailed;
  }
  if (stopped?.reason === 'max_error_rate') {
    const classes = Object.entries(stopped.errors)
      .map(([cls, n]) => `${cls} ${n}`)
      .join(', ');
    const group = outcome.summary.groups.find((g) => g.key === stopped.group);
    const sample = group ? Object.values(group.requests.error_samples).flat()[0] : undefined;
    const percent = (rate: number): string => `${Math.round(rate * 10_000) / 100}%`;
    ctx.stderr.write(
      `inferbench: stopped early at ${stopped.at_s} s: ${stopped.group} error rate ${percent(stopped.error_rate)} of ${stopped.requests} requests exceeds max_error_rate ${percent(stopped.max_error_rate)} (${classes})${sample ? `: ${sample}` : ''}; ${written}\n  hint: check the target URL, the API key variable and the model names\n`,
    );
  }
  return EXIT.runFailed;
}

/** `--start-at` text -> epoch ms: ISO 8601 with a date, a time and a zone (Z or an offset), else exit 2. */
export function parseStartAt(text: string): number {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
  const wallMs = iso.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN;
  if (Number.isNaN(wallMs)) {
    throw new InferbenchError('BAD_USAGE', `--start-at ${JSON.stringify(text)} is not an ISO 8601 time with a zone`, {
      hint: 'e.g. --start-at 2026-11-23T10:00:00Z (every shard must read the same instant, so give Z or an offset)',
    });
  }
  return wallMs;
}

/** What a shard or a --start-at wait tells the user: when it starts, and scenarios it sends nothing for. */
function startEvents(ctx: CliContext, shard: ShardSpec | null, quiet: boolean): RunEvents {
  return {
    onStartAt: ({ untilWallMs, waitMs }) => {
      const until = new Date(untilWallMs).toISOString();
      if (waitMs <= 0) {
        ctx.stderr.write(
          `inferbench: warning: --start-at ${until} is ${(-waitMs / 1000).toFixed(1)} s in the past; starting now\n`,
        );
      } else if (!quiet) {
        ctx.stderr.write(`inferbench: waiting until ${until} (${(waitMs / 1000).toFixed(1)} s) to start\n`);
      }
    },
    onShardIdle: (scenario, reason) => {
      const which = shard ? `shard ${shard.index}/${shard.count}` : 'this shard';
      ctx.stderr.write(`inferbench: ${which} sends nothing for scenario ${scenario.name}: ${reason}\n`);
    },
    onSweepRate: (group, measured) => {
      if (!quiet)
        ctx.stderr.write(
          `inferbench: sweep ${group.key}: ${measured.rate} req/s (between ${measured.syncPerS} one at a time and ${measured.throughputPerS} at throughput)\n`,
        );
    },
    onWorkerIdle: (scenario, worker, reason) => {
      ctx.stderr.write(
        `inferbench: worker ${worker} sends nothing for scenario ${scenario} (${reason}); fewer --workers would do\n`,
      );
    },
  };
}

function describeAllFailed(groups: RunOutcome['summary']['groups']): string {
  const counts: Record<string, number> = {};
  for (const group of groups)
    for (const [cls, n] of Object.entries(group.requests.errors)) counts[cls] = (counts[cls] ?? 0) + n;
  const classes = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([cls, n]) => `${cls} ${n}`)
    .join(', ');
  const sample = groups.flatMap((group) => Object.values(group.requests.error_samples).flat())[0];
  return `every request failed (${classes})${sample ? `: ${sample}` : ''}`;
}
