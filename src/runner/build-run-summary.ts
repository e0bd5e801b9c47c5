/**
 * A run's results as summary.json's RunSummary (metrics/run-summary.ts): the runner's outcome plus what
 * the run was (id, version, target, how it connected), secret-free, and the verdict that the CLI turns
 * into an exit code. Pure; writing it belongs to report/.
 */
import { proxyFor, withoutCredentials as proxyWithoutCredentials, type ProxySettings } from '../client/proxy.js';
import { INSECURE_TLS_WARNING } from '../client/tls-options.js';
import { runCost } from '../aggregate/cost/cost-of.js';
import { breakdownOverflowWarnings } from '../aggregate/breakdown-accumulator.js';
import { SUMMARY_SCHEMA_VERSION } from '../metrics/run-summary.js';
import type { HarnessHealth, RunStopped, RunSummary, ThresholdResult } from '../metrics/run-summary.js';
import type { ResolvedProfile, TlsSpec } from '../profile/resolved-profile.js';
import { recordedProfile } from '../profile/sections/trace/trace.js';
import { workloadHashWithoutModels } from '../workload/workload-hash.js';
import type { RunResult } from './run-profile.js';
import { hidePassword } from '../util/hide-password.js';

/** What summary.json says about the run besides its results. */
export interface RunIdentity {
  readonly runId: string;
  readonly version: string;
  readonly baseUrl: string;
  readonly embeddedEmulator: boolean;
  readonly proxy: ProxySettings | null;
  /** `run --label`; null or absent: none. */
  readonly label?: string | null;
  /** `GITHUB_SHA` at run time; null or absent: not set. */
  readonly commit?: string | null;
}

/**
 * How the run ended, in order of precedence for the exit code: stopped early by --max-cost (4), by an
 * abort_on_fail threshold (99) or by max_error_rate (3), interrupted (130), every request failed (3), a
 * threshold failed (99), ok.
 */
export type RunVerdict =
  | 'ok'
  | 'interrupted'
  | 'all_failed'
  | 'threshold_failed'
  | 'stopped_by_threshold'
  | 'stopped_by_errors'
  | 'stopped_by_budget';

export function buildRunSummary(result: RunResult, identity: RunIdentity, thresholds: ThresholdResult[]): RunSummary {
  const cost = runCost(result.groups, result.endedAtWallMs - result.startedAtWallMs);
  return {
    schema_version: SUMMARY_SCHEMA_VERSION,
    run_id: identity.runId,
    started_at: new Date(result.startedAtWallMs).toISOString(),
    ended_at: new Date(result.endedAtWallMs).toISOString(),
    complete: result.complete,
    inferbench_version: identity.version,
    profile: {
      name: result.profile.name,
      source: result.profile.sourcePath,
      // A trace replay's records stay out (its spec says which file was replayed).
      resolved: recordedProfile(secretFreeProfile(result.profile)),
    },
    workload_hash: result.workloadHash,
    workload_hash_without_models: workloadHashWithoutModels(result.profile),
    target: {
      base_url: withoutCredentials(identity.baseUrl),
      embedded_emulator: identity.embeddedEmulator,
      ...connectionSummary(identity, result.profile.target.tls),
      tokenizer: result.tokenizer,
    },
    shard: result.shard === null ? null : { index: result.shard.index, count: result.shard.count },
    workers: result.workers ?? 1,
    ...(result.sweepRates === undefined ? {} : { sweep_rates: { ...result.sweepRates } }),
    start_at: result.startAtWallMs === null ? null : new Date(result.startAtWallMs).toISOString(),
    label: identity.label ?? null,
    commit: identity.commit ?? null,
    groups: result.groups,
    thresholds,
    stopped: stoppedOf(result),
    harness: withWarnings(withTlsWarning(result.harness, result.profile.target.tls), [
      ...breakdownOverflowWarnings(result.groups),
      ...(result.serverMetrics?.warnings ?? []),
    ]),
    // Only when some model had a price: summaries of unpriced runs stay as they were.
    ...(cost === undefined ? {} : { cost }),
    ...(result.serverMetrics === undefined ? {} : { server_metrics: result.serverMetrics.endpoints }),
  };
}

/** Why the run ended early; a run in workers knows only that it was interrupted (when: at its end). */
function stoppedOf(result: RunResult): RunStopped | null {
  if (result.stopped !== undefined) return result.stopped;
  if (!result.interrupted) return null;
  return { reason: 'interrupted', at_s: Math.round(result.endedAtWallMs - result.startedAtWallMs) / 1000 };
}

/** How the run connected: the proxy in use (credentials removed) and target.tls (paths only). */
function connectionSummary(identity: RunIdentity, tls: TlsSpec | null): Pick<RunSummary['target'], 'proxy' | 'tls'> {
  const proxy = identity.proxy ? proxyFor(identity.baseUrl, identity.proxy) : null;
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

/** The harness health with `warnings` added (the same object when there are none). */
function withWarnings(harness: HarnessHealth, warnings: readonly string[]): HarnessHealth {
  return warnings.length === 0 ? harness : { ...harness, warnings: [...harness.warnings, ...warnings] };
}

/** Header values that may carry credentials are replaced: summary.json is shared, keys must not be. */
const SECRET_HEADER = /authorization|api[-_]?key|token|secret|cookie|password/i;

function secretFreeProfile(profile: ResolvedProfile): ResolvedProfile {
  const headers = Object.fromEntries(
    Object.entries(profile.target.headers).map(([name, value]) => [
      name,
      SECRET_HEADER.test(name) ? '<redacted>' : value,
    ]),
  );
  // A server_metrics URL may carry a password (http://user:pass@host/metrics): hidden as the scraper hides it.
  const serverMetrics = profile.target.serverMetrics?.map((spec) => ({ ...spec, url: hidePassword(spec.url) }));
  return {
    ...profile,
    target: { ...profile.target, headers, ...(serverMetrics === undefined ? {} : { serverMetrics }) },
  };
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

/** How the run ended: stopped early (and why), interrupted, every request failed, a threshold failed, or ok. */
export function runVerdict(summary: RunSummary, failedThresholds: readonly ThresholdResult[]): RunVerdict {
  if (summary.stopped?.reason === 'max_cost') return 'stopped_by_budget';
  if (summary.stopped?.reason === 'abort_on_fail') return 'stopped_by_threshold';
  if (summary.stopped?.reason === 'max_error_rate') return 'stopped_by_errors';
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
