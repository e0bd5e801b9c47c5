/**
 * One whole `inferbench run` minus the terminal: makes the run folder, opens requests.csv before the first
 * request, runs the profile, then writes summary.json, summary.csv and timeseries.csv before anything
 * that could still fail (the HTML report last, inside a try), evaluates thresholds and says how the run
 * ended. The CLI turns the outcome into output and an exit code.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RequestRecord } from '../client/request-record.js';
import type { TokenCounts } from '../measure/token-counts.js';
import type { ResolvedGroup, ResolvedProfile, TlsSpec } from '../profile/resolved-profile.js';
import { SUMMARY_SCHEMA_VERSION } from '../report/run-summary.js';
import type { HarnessHealth, RunSummary, ThresholdResult } from '../report/run-summary.js';
import { proxyFor, withoutCredentials as proxyWithoutCredentials } from '../client/proxy.js';
import { INSECURE_TLS_WARNING } from '../client/tls-options.js';
import { openRequestsCsv } from '../report/requests-csv.js';
import { writeSummaryJson } from '../report/summary-json.js';
import { writeSummaryCsv } from '../report/summary-csv.js';
import { writeTimeSeriesCsv } from '../report/timeseries-csv.js';
import { writeHtmlReport } from '../report/html/write-html-report.js';
import { nowUs } from '../util/clock.js';
import { workloadHashWithoutModels } from '../workload/workload-hash.js';
import { runProfile } from './run-profile.js';
import type { RunProfileOptions, RunResult } from './run-profile.js';
import { makeRunId } from './run-id.js';
import { defaultRunnerDeps } from './runner-deps.js';

export interface ExecuteRunOptions extends RunProfileOptions {
  /** Folder the run folder goes into (reports/), used when `outDir` is null. */
  readonly reportsDir: string;
  /** `--out DIR`: the run folder itself. */
  readonly outDir: string | null;
  /** Whether the target is the embedded emulator (recorded in summary.json). */
  readonly embeddedEmulator: boolean;
}

/** How the run ended, in order of precedence for the exit code. */
export type RunVerdict = 'ok' | 'interrupted' | 'all_failed' | 'threshold_failed';

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
  const deps = options.deps ?? defaultRunnerDeps;
  const startedWallMs = options.clock.wallMs();
  const runId = makeRunId(startedWallMs, options.profile.name);
  const runDir = options.outDir ? resolve(options.outDir) : await uniqueDir(resolve(options.reportsDir), runId);
  await mkdir(runDir, { recursive: true });

  const requestsCsv = await openRequestsCsv(join(runDir, 'requests.csv'), nowUs());
  const userOnRecord = options.events?.onRecord;
  const onRecord = (record: RequestRecord, group: ResolvedGroup, tokens: TokenCounts): void => {
    requestsCsv.write(record, group, tokens);
    userOnRecord?.(record, group, tokens);
  };
  let result: RunResult;
  try {
    result = await runProfile({ ...options, deps, events: { ...options.events, onRecord } });
  } finally {
    await requestsCsv.close();
  }

  const thresholds = deps.evaluateThresholds(result.profile.thresholds, result.groups);
  const summary: RunSummary = {
    schema_version: SUMMARY_SCHEMA_VERSION,
    run_id: runIdOf(runDir, runId, options.outDir),
    started_at: new Date(result.startedAtWallMs).toISOString(),
    ended_at: new Date(result.endedAtWallMs).toISOString(),
    complete: result.complete,
    inferbench_version: options.version,
    profile: { name: result.profile.name, source: result.profile.sourcePath, resolved: secretFreeProfile(result.profile) },
    workload_hash: result.workloadHash,
    workload_hash_without_models: workloadHashWithoutModels(result.profile),
    target: { base_url: withoutCredentials(options.baseUrl), embedded_emulator: options.embeddedEmulator, ...connectionSummary(options), tokenizer: result.tokenizer },
    groups: result.groups,
    thresholds,
    harness: withTlsWarning(result.harness, result.profile.target.tls),
  };
  await writeSummaryJson(runDir, summary);
  await writeSummaryCsv(runDir, summary.groups);
  await writeTimeSeriesCsv(runDir, result.timeSeries);
  const problems: string[] = [];
  try {
    await writeHtmlReport(runDir, summary, result.timeSeries);
  } catch (error) {
    problems.push(`report.html could not be written: ${error instanceof Error ? error.message : String(error)}`);
  }

  const failedThresholds = thresholds.filter((threshold) => !threshold.passed);
  return { runDir, summary, result, verdict: verdictOf(summary, failedThresholds), failedThresholds, problems };
}

/** How the run connected: the proxy in use (credentials removed) and target.tls (paths only). */
function connectionSummary(options: ExecuteRunOptions): Pick<RunSummary['target'], 'proxy' | 'tls'> {
  const proxy = options.proxy ? proxyFor(options.baseUrl, options.proxy) : null;
  const tls = options.profile.target.tls;
  return {
    proxy: proxy === null ? null : proxyWithoutCredentials(proxy),
    tls: tls === null ? null : { ca: tls.caPath, cert: tls.certPath, insecure_skip_verify: tls.insecureSkipVerify },
  };
}

/** A run that did not check the target's certificate says so among the harness warnings. */
function withTlsWarning(harness: HarnessHealth, tls: TlsSpec | null): HarnessHealth {
  if (tls === null || !tls.insecureSkipVerify) return harness;
  return { ...harness, warnings: [...harness.warnings, INSECURE_TLS_WARNING] };
}

/** Header values that may carry credentials are replaced: summary.json is shared, keys must not be. */
const SECRET_HEADER = /authorization|api[-_]?key|token|secret|cookie|password/i;

function secretFreeProfile(profile: ResolvedProfile): ResolvedProfile {
  const headers = Object.fromEntries(
    Object.entries(profile.target.headers).map(([name, value]) => [name, SECRET_HEADER.test(name) ? '<redacted>' : value]),
  );
  return { ...profile, target: { ...profile.target, headers } };
}

function withoutCredentials(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    if (!url.username && !url.password) return baseUrl;
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/+$/, '');
  } catch {
    return baseUrl;
  }
}

function verdictOf(summary: RunSummary, failedThresholds: readonly ThresholdResult[]): RunVerdict {
  if (!summary.complete) return 'interrupted';
  let ok = 0;
  let notOk = 0;
  for (const group of summary.groups) {
    ok += group.requests.ok;
    notOk += group.requests.failed + (group.requests.errors['http_429'] ?? 0);
  }
  if (ok === 0 && notOk > 0) return 'all_failed';
  if (failedThresholds.length > 0) return 'threshold_failed';
  return 'ok';
}

/** reports/<run-id>, or reports/<run-id>-2, -3, ... when two runs start in the same second. */
async function uniqueDir(reportsDir: string, runId: string): Promise<string> {
  for (let n = 1; ; n++) {
    const dir = join(reportsDir, n === 1 ? runId : `${runId}-${n}`);
    try {
      await mkdir(dir, { recursive: false });
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        await mkdir(reportsDir, { recursive: true });
        n--;
        continue;
      }
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

function runIdOf(runDir: string, runId: string, outDir: string | null): string {
  if (outDir) return runId;
  const base = runDir.split(/[\\/]/).pop();
  return base ?? runId;
}
