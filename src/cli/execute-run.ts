/**
 * One whole `inferbench run` minus the terminal, composed here because it spans layers: report/ makes the
 * run folder and opens requests.csv before the first request; runner/ runs the profile (each finished
 * request's row is written as it ends) and builds the summary; report/ writes summary.json, summary.csv
 * and timeseries.csv before anything that could still fail, the HTML report last. The CLI turns the
 * outcome into output and an exit code.
 */
import { API_REQUESTS, type ApiRequests } from '../workload/apis/api-bodies.js';
import { join } from 'node:path';
import type { RequestRecord } from '../client/request-record.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { RunSummary, ThresholdResult } from '../metrics/run-summary.js';
import type { ResolvedGroup } from '../profile/resolved-profile.js';
import type { PriceBook } from '../aggregate/cost/cost-prices.js';
import { openRequestsCsv } from '../report/requests-csv.js';
import { createRunFolder, writeRunFiles } from '../report/run-folder.js';
import { buildRunSummary, runVerdict, type RunVerdict } from '../runner/build-run-summary.js';
import { runProfile } from '../runner/run-profile.js';
import { runProfileInWorkers, type WorkerPoolOptions } from '../runner/run-in-workers.js';
import type { RunProfileOptions, RunResult } from '../runner/run-profile.js';
import { makeRunId } from '../runner/run-id.js';
import { defaultRunnerDeps } from '../runner/runner-deps.js';
import { profileSetsLabels, scenarioRequestFields } from '../workload/request-labels.js';
import { asksForAnswerChecks } from '../measure/answer-validators.js';

export type { RunVerdict } from '../runner/build-run-summary.js';

export interface ExecuteRunOptions extends RunProfileOptions {
  /** Folder the run folder goes into (reports/), used when `outDir` is null. */
  readonly reportsDir: string;
  /** `--out DIR`: the run folder itself. */
  readonly outDir: string | null;
  /** Whether the target is the embedded emulator (recorded in summary.json). */
  readonly embeddedEmulator: boolean;
  /** `--workers N` with N >= 2: the load is sent by N worker threads; absent or null: by this thread. */
  readonly workers?: WorkerPoolOptions | null;
  /** The run's prices: requests.csv gets a cost_usd column when some model is priced per token. */
  readonly prices?: PriceBook | null;
  /** What summary.json records of what the run measured: `--label` and `GITHUB_SHA` (null: none). */
  readonly label?: { readonly label: string | null; readonly commit: string | null };
}

export interface RunOutcome {
  readonly runDir: string;
  readonly summary: RunSummary;
  readonly result: RunResult;
  readonly verdict: RunVerdict;
  readonly failedThresholds: ThresholdResult[];
  /** Non-fatal problems after the results were safe on disk (the HTML report failed, ...). */
  readonly problems: string[];
}

export async function executeRun(options: ExecuteRunOptions): Promise<RunOutcome> {
  const { env, target } = options;
  const deps = env.deps ?? defaultRunnerDeps;
  const runId = makeRunId(env.clock.wallMs(), options.profile.name, options.control.shard ?? null);
  const runDir = await createRunFolder(options.reportsDir, options.outDir, runId);

  const requestsCsv = await openRequestsCsv(join(runDir, 'requests.csv'), env.clock.nowUs(), {
    labels: profileSetsLabels(options.profile),
    checks: options.profile.scenarios.some((s) => scenarioRequestFields(s).some(asksForAnswerChecks)),
    prices: options.prices ?? null,
    // api: embeddings (an API whose requests carry several inputs): each row's inputs.
    inputs: options.profile.scenarios.some((s) => carriesInputs(API_REQUESTS[s.api ?? 'chat'])),
  });
  const userOnRecord = env.events?.onRecord;
  const onRecord = (record: RequestRecord, group: ResolvedGroup, values: RecordedValues): void => {
    requestsCsv.write(record, group, values);
    userOnRecord?.(record, group, values);
  };
  const userOnRunStart = env.events?.onRunStart;
  const onRunStart = (runStartUs: number): void => {
    requestsCsv.startAt(runStartUs);
    userOnRunStart?.(runStartUs);
  };
  let result: RunResult;
  try {
    const runOptions = { ...options, env: { ...env, deps, events: { ...env.events, onRecord, onRunStart } } };
    const workers = options.workers ?? null;
    result =
      workers !== null && workers.count > 1
        ? await runProfileInWorkers(runOptions, workers)
        : await runProfile(runOptions);
  } finally {
    await requestsCsv.close();
  }

  const thresholds = deps.evaluateThresholds(result.profile.thresholds, result.groups);
  const identity = {
    // --out keeps the generated id; reports/<run-id>-2 is its own.
    runId: options.outDir ? runId : (runDir.split(/[\\/]/).pop() ?? runId),
    version: env.version,
    baseUrl: target.baseUrl,
    embeddedEmulator: options.embeddedEmulator,
    proxy: target.proxy ?? null,
    label: options.label?.label ?? null,
    commit: options.label?.commit ?? null,
  };
  const summary = buildRunSummary(result, identity, thresholds);
  const { problems } = await writeRunFiles(runDir, { summary, timeSeries: result.timeSeries });
  const failedThresholds = thresholds.filter((threshold) => !threshold.passed);
  return { runDir, summary, result, verdict: runVerdict(summary, failedThresholds), failedThresholds, problems };
}

/** Whether an API's requests carry several inputs (api: embeddings' batchBody). */
function carriesInputs(api: ApiRequests): boolean {
  return api.batchBody !== undefined;
}
