/**
 * target.server_metrics in a run: the scraper (client/server-metrics/scraper.ts) started on the run's clock
 * at the run's start (before any warmup) and stopped after the last request, in the thread that owns the
 * collector only (a worker thread is given no scrape environment; of `--shard i/N` only shard 1 scrapes, so
 * a merge counts the server once). It is told every finished record, to know each scenario's phases (first
 * intended start to last end), their output tokens and the client's cached tokens; at the end it adds the
 * server's concepts to every group (`server`, with the prefix-cache check of a workload that aims at the
 * cache), the per-second columns to the time series, and the endpoints and warnings to the result.
 * Nothing here can fail the run or touch a client number: a scraper that throws is a warning.
 */
import {
  cacheAimsOf,
  cacheSlotUs,
  PrefixCacheTallies,
  prefixCacheWarning,
} from '../aggregate/server-metrics/prefix-cache-check.js';
import {
  serverEndpoints,
  serverPhase,
  serverSeconds,
  serverWarnings,
  type PhaseSpan,
} from '../aggregate/server-metrics/server-summary.js';
import { serverLatest, type ServerLatest } from '../aggregate/server-metrics/server-latest.js';
import type { RequestRecord } from '../client/request-record.js';
import { startServerMetrics, type ServerMetricsSession } from '../client/server-metrics/scraper.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { GroupSummary, TimeSeriesPoint } from '../metrics/run-summary.js';
import type { ServerEndpointSummary } from '../metrics/server-summary.js';
import type { ResolvedGroup, ResolvedProfile } from '../profile/resolved-profile.js';
import { resolveEndpointUrl } from '../profile/sections/server-metrics.js';
import type { ShardSpec } from '../schedule/shard.js';
import type { Clock } from '../util/clock.js';
import { PREFIX_LABEL } from '../workload/prompt-prefixes.js';

/** What a run adds to its result from the scrapes. */
export interface ServerMetricsOutcome {
  readonly endpoints: ServerEndpointSummary[];
  /** Failing endpoints, an `auto` that recognised nothing (secret-free). */
  readonly warnings: string[];
}

export interface ServerScraping {
  /** A finished record (warmup or measured): its scenario's phase window and output tokens grow. */
  observe(record: RequestRecord, values: RecordedValues): void;
  /**
   * Each endpoint at its latest scrape as of `nowUs`, for the live views' ticks: read on demand, once (a tick
   * no view reads costs nothing); null: this run does not scrape.
   */
  latest(nowUs: number): (() => ServerLatest) | null;
  /**
   * Stops scraping; the groups with `server`, the series with its server columns, and the outcome (a run
   * that scrapes nothing: the results as they were, no outcome).
   */
  finish(results: { readonly groups: GroupSummary[]; readonly timeSeries: TimeSeriesPoint[] }): Promise<{
    groups: GroupSummary[];
    timeSeries: TimeSeriesPoint[];
    serverMetrics?: ServerMetricsOutcome;
  }>;
}

/** A run that scrapes nothing. */
const NOT_SCRAPING: ServerScraping = {
  observe: () => undefined,
  latest: () => null,
  finish: async (results) => ({ groups: results.groups, timeSeries: results.timeSeries }),
};

interface MutableSpan {
  fromUs: number;
  toUs: number;
  outputTokens: number;
}

/** What a run's options tell the scraper: the CLI's environment (absent in worker threads) and the target. */
export interface ScrapingRun {
  readonly control: { readonly serverMetricsEnv?: Readonly<Record<string, string | undefined>> | null };
  readonly target: { readonly baseUrl: string };
}

/**
 * Starts scraping when the profile names endpoints, `env` is given (the CLI's environment, for api_key_env;
 * absent in worker threads) and this is not a shard other than the first; otherwise scrapes nothing.
 */
export function startServerScraping(
  profile: ResolvedProfile,
  run: ScrapingRun,
  shard: ShardSpec | null,
  clock: Clock,
  runStartUs: number,
): ServerScraping {
  const env = run.control.serverMetricsEnv;
  // A path (`/metrics`) is on the run's target: the embedded emulator's URL is known only now.
  const endpoints = (profile.target.serverMetrics ?? []).map((endpoint) => ({
    ...endpoint,
    url: resolveEndpointUrl(endpoint.url, run.target.baseUrl),
  }));
  if (env == null || endpoints.length === 0 || (shard !== null && shard.index !== 1)) return NOT_SCRAPING;
  let session: ServerMetricsSession | null = null;
  let startError: string | null = null;
  try {
    session = startServerMetrics(endpoints, { clock, env });
  } catch (error) {
    startError = `server metrics could not start: ${error instanceof Error ? error.message : String(error)}`;
  }
  const groups: ResolvedGroup[] = [];
  for (const group of profile.groups) groups[group.index] = group;
  const aims = cacheAimsOf(profile);
  // scenario -> phase -> its window so far.
  const phases = new Map<string, { warmup?: MutableSpan; measured?: MutableSpan }>();
  const caches = new PrefixCacheTallies(cacheSlotUs(endpoints.map((endpoint) => endpoint.intervalMs)));
  return {
    observe(record, values) {
      const group = groups[record.groupIndex];
      if (group === undefined || !Number.isFinite(record.launchUs)) return;
      let scenario = phases.get(group.scenario);
      if (scenario === undefined) {
        scenario = {};
        phases.set(group.scenario, scenario);
      }
      const key = record.warmup ? 'warmup' : 'measured';
      const endUs = Number.isFinite(record.endUs) ? record.endUs : record.launchUs;
      let span = scenario[key];
      if (span === undefined) {
        span = { fromUs: record.launchUs, toUs: endUs, outputTokens: 0 };
        scenario[key] = span;
      }
      if (record.launchUs < span.fromUs) span.fromUs = record.launchUs;
      if (endUs > span.toUs) span.toUs = endUs;
      if (Number.isFinite(values.output_tokens)) span.outputTokens += values.output_tokens;
      caches.add(group.scenario, {
        phase: key,
        prefilledUs: Number.isFinite(record.firstTokenUs) ? record.firstTokenUs : endUs,
        aim: aims[record.groupIndex] ?? null,
        values,
        prefixLabel: record.labels?.[PREFIX_LABEL],
      });
    },
    latest: (nowUs) => {
      if (session === null) return null;
      const logs = session.logs;
      let read: ServerLatest | null = null;
      return () => {
        read ??= serverLatest(logs, runStartUs, nowUs);
        return read;
      };
    },
    async finish(results) {
      let logs: Awaited<ReturnType<ServerMetricsSession['stop']>> = [];
      const warnings = startError === null ? [] : [startError];
      try {
        logs = session === null ? [] : await session.stop();
      } catch (error) {
        warnings.push(`server metrics stopped badly: ${error instanceof Error ? error.message : String(error)}`);
      }
      const phase = (scenario: string, name: 'warmup' | 'measured', span: PhaseSpan | undefined) => {
        if (span === undefined) return null;
        const server = serverPhase(logs, span, runStartUs, shard !== null && shard.count > 1);
        return caches.withCheck(scenario, logs, { name, ...span, server }, runStartUs);
      };
      // Once per scenario: its groups share the phases.
      const byScenario = new Map(
        [...phases].map(([name, spans]) => [
          name,
          { measured: phase(name, 'measured', spans.measured), warmup: phase(name, 'warmup', spans.warmup) },
        ]),
      );
      for (const [name, { measured }] of byScenario) {
        const warning = measured === null ? null : prefixCacheWarning(name, 'measured', measured);
        if (warning !== null) warnings.push(warning);
      }
      const withServer = results.groups.map((group): GroupSummary => {
        const spans = byScenario.get(group.scenario);
        const warmup = spans?.warmup ?? null;
        return { ...group, server: { measured: spans?.measured ?? null, ...(warmup === null ? {} : { warmup }) } };
      });
      const count = results.timeSeries.reduce((max, point) => Math.max(max, point.second + 1), 0);
      const columns = serverSeconds(logs, runStartUs, count);
      const timeSeries =
        columns.length === 0
          ? results.timeSeries
          : results.timeSeries.map((point) => ({ ...point, server: columns[point.second] ?? {} }));
      return {
        groups: withServer,
        timeSeries,
        serverMetrics: {
          endpoints: serverEndpoints(logs, runStartUs),
          warnings: [...warnings, ...serverWarnings(logs)],
        },
      };
    },
  };
}
