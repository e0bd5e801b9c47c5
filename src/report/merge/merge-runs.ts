/**
 * `inferbench merge`: the results of the shards of one run (`run --shard i/N`) combined exactly into one
 * run's results. Groups merge by key with aggregate/merge.ts (histograms add, counters add, stats
 * recomputed), the window runs from the earliest start to the latest end, thresholds are evaluated again
 * on the merged groups, the harness health is the worst of the shards plus a per-shard list, and the time
 * series align on wall-clock seconds. The server's side (target.server_metrics: summary.json `server_metrics`,
 * each group's `server`, timeseries.csv's `server_*` columns) is the deployment's, seen by the one shard
 * that scraped (shard 1): it is kept as that shard wrote it, never added over shards (which would count the
 * server twice), but for the energy per output token, whose tokens are then every shard's. Pure: reading
 * and writing the files is the caller's.
 */
import { InferbenchError } from '../../errors.js';
import { mergeGroupSummaries } from '../../aggregate/merge.js';
import { evaluateThresholds } from '../../aggregate/thresholds.js';
import { worstHealth } from '../../aggregate/worst-health.js';
import type { ThresholdSpec } from '../../profile/resolved-profile.js';
import type { GroupSummary, HarnessHealth, RunSummary, TimeSeriesPoint } from '../../metrics/run-summary.js';
import type { ServerPhaseSummary } from '../../metrics/server-summary.js';
import { mergeTimeSeries } from './merge-time-series.js';

/** One shard's results as loaded from its folder. */
export interface ShardResults {
  readonly dir: string;
  readonly summary: RunSummary;
  readonly timeSeries: readonly TimeSeriesPoint[];
}

/** `shard` of a summary written by `run --shard i/N`; absent or null in other runs (unknown). */
export interface ShardPosition {
  readonly index: number;
  readonly count: number;
}

/** One shard's entry in the merged summary's `harness.shards`. */
export interface ShardHealth {
  readonly run_id: string;
  readonly dir: string;
  readonly shard: ShardPosition | null;
  readonly started_at: string;
  readonly ended_at: string;
  readonly complete: boolean;
  readonly health: HarnessHealth;
}

/** summary.json of a merged run: a run summary that says which runs it was merged from. */
export type MergedRunSummary = RunSummary & {
  /** run_id of every shard merged, in the order of their start. */
  merged_from: string[];
  /** A merged run is no shard. */
  shard?: null;
  harness: HarnessHealth & { shards: ShardHealth[] };
};

export interface MergeOptions {
  /** Merge even when the shards are of different profiles or workloads (the mismatches become warnings). */
  readonly force: boolean;
  /** inferbench's version, recorded in the merged summary. */
  readonly version: string;
}

export interface MergeResult {
  readonly summary: MergedRunSummary;
  readonly timeSeries: TimeSeriesPoint[];
  /** The differences that would have refused the merge (non-empty only with --force). */
  readonly mismatches: string[];
  /** Wall-clock ms of the earliest shard's start: requests.csv's start_ms are re-based on it. */
  readonly startedAtMs: number;
  /** What the merged numbers cannot say (several shards scraped the server: one kept). */
  readonly warnings: string[];
}

/** The `shard` a summary carries, or null when it has none (a run without --shard, an older file). */
export function shardOf(summary: RunSummary): ShardPosition | null {
  const shard = (summary as { shard?: unknown }).shard;
  if (!shard || typeof shard !== 'object') return null;
  const { index, count } = shard as { index?: unknown; count?: unknown };
  return typeof index === 'number' && typeof count === 'number' ? { index, count } : null;
}

/** Reasons these runs are not shards of one run: different profiles or workloads, duplicate or mismatched shards. */
export function shardMismatches(shards: readonly ShardResults[]): string[] {
  const problems: string[] = [];
  const [first, ...rest] = shards;
  if (first === undefined) return problems;
  const label = (s: ShardResults): string => `${s.summary.run_id} (${s.dir})`;
  for (const other of rest) {
    if (other.summary.profile.name !== first.summary.profile.name)
      problems.push(
        `profile "${other.summary.profile.name}" of ${label(other)} is not "${first.summary.profile.name}" of ${label(first)}`,
      );
    if (other.summary.workload_hash !== first.summary.workload_hash)
      problems.push(
        `workload_hash ${other.summary.workload_hash} of ${label(other)} differs from ${first.summary.workload_hash} of ${label(first)}`,
      );
  }
  const positions = shards.map((s) => ({ shard: s, position: shardOf(s.summary) }));
  const counts = new Set(positions.flatMap(({ position }) => (position === null ? [] : [position.count])));
  if (counts.size > 1)
    problems.push(
      `the shards were split in different counts: ${positions
        .filter(({ position }) => position !== null)
        .map(({ shard, position }) => `${label(shard)} is shard ${position?.index}/${position?.count}`)
        .join(', ')}`,
    );
  const byIndex = new Map<number, ShardResults[]>();
  for (const { shard, position } of positions) {
    if (position === null) continue;
    byIndex.set(position.index, [...(byIndex.get(position.index) ?? []), shard]);
  }
  for (const [index, same] of byIndex)
    if (same.length > 1)
      problems.push(`shard index ${index} appears ${same.length} times: ${same.map(label).join(', ')}`);
  const dirs = new Set<string>();
  for (const s of shards) {
    if (dirs.has(s.dir)) problems.push(`${s.dir} is given twice`);
    dirs.add(s.dir);
  }
  return problems;
}

/** Merges the shards' results; throws BAD_RESULTS naming every difference unless `force`. */
export function mergeRuns(shards: readonly ShardResults[], options: MergeOptions): MergeResult {
  if (shards.length < 2)
    throw new InferbenchError('BAD_USAGE', `merge needs at least two run folders, got ${shards.length}.`, {
      hint: 'inferbench merge <dir> <dir>... --out DIR',
    });
  const mismatches = shardMismatches(shards);
  if (mismatches.length > 0 && !options.force)
    throw new InferbenchError(
      'BAD_RESULTS',
      `These runs are not shards of one run:\n  - ${mismatches.join('\n  - ')}`,
      {
        hint: 'Merge the folders of one profile run with --shard i/N; --force merges them anyway (with a warning).',
      },
    );

  const ordered = [...shards].sort((a, b) => startMs(a) - startMs(b));
  const first = ordered[0] as ShardResults;
  const startedAtMs = startMs(first);
  const endedAtMs = Math.max(...ordered.map((s) => Date.parse(s.summary.ended_at)));
  const server = serverShard(ordered);
  const mergedGroups = mergeGroups(ordered);
  const tokenScale = server.shard === null ? new Map<string, number>() : outputTokenScale(mergedGroups, server.shard);
  const groups = mergedGroups.map((group) => withServerOf(group, server.shard, tokenScale));
  const thresholds = evaluateThresholds(thresholdSpecs(first.summary), groups);
  const { server_metrics: _firstShardEndpoints, ...firstSummary } = first.summary;
  const endpoints = server.shard?.summary.server_metrics;
  const summary: MergedRunSummary = {
    // Spread first so that fields this file does not know of (start_at, ...) keep the first shard's value.
    ...firstSummary,
    ...(endpoints === undefined ? {} : { server_metrics: endpoints }),
    run_id: `${first.summary.run_id}-merged`,
    started_at: new Date(startedAtMs).toISOString(),
    ended_at: new Date(endedAtMs).toISOString(),
    complete: ordered.every((s) => s.summary.complete),
    inferbench_version: options.version,
    shard: null,
    merged_from: ordered.map((s) => s.summary.run_id),
    groups,
    thresholds,
    harness: mergeHarness(ordered),
  };
  const timeSeries = mergeTimeSeries(
    ordered.map((s) => ({ offsetMs: startMs(s) - startedAtMs, points: s.timeSeries, keepsServer: s === server.shard })),
  );
  return { summary, timeSeries, mismatches, startedAtMs, warnings: server.warnings };
}

/** Whether a shard scraped the server: endpoints recorded, a group's `server`, or `server_*` columns. */
function hasServerSide(shard: ShardResults): boolean {
  return (
    (shard.summary.server_metrics?.length ?? 0) > 0 ||
    shard.summary.groups.some((g) => g.server !== undefined) ||
    shard.timeSeries.some((p) => p.server !== undefined)
  );
}

/**
 * The shard whose server side the merged run keeps: of those that scraped, the lowest shard index (then
 * the earliest start). Only shard 1 scrapes; several did only in results of another setup (an older
 * inferbench): the first is kept and the others named in a warning, since every shard saw the same server.
 */
function serverShard(ordered: readonly ShardResults[]): { shard: ShardResults | null; warnings: string[] } {
  const index = (s: ShardResults): number => shardOf(s.summary)?.index ?? Number.POSITIVE_INFINITY;
  const scraped = ordered.filter(hasServerSide).sort((a, b) => index(a) - index(b));
  const [kept, ...dropped] = scraped;
  if (kept === undefined) return { shard: null, warnings: [] };
  const name = (s: ShardResults): string => {
    const position = shardOf(s.summary);
    return `${s.summary.run_id}${position === null ? '' : ` (shard ${position.index}/${position.count})`}`;
  };
  const warnings: string[] = [];
  if (dropped.length > 0)
    warnings.push(
      `${scraped.length} shards scraped the server (target.server_metrics): the merged run keeps the server side of ${name(kept)} only and drops that of ${dropped.map(name).join(', ')}; every shard saw the same server, so adding them would count it ${scraped.length} times`,
    );
  return { shard: kept, warnings };
}

/** Output tokens of a group's ok requests (their count x mean). */
function outputTokensOf(group: GroupSummary): number {
  const stats = group.metrics.output_tokens;
  return stats === undefined ? 0 : stats.count * stats.mean;
}

/**
 * Per scenario, every shard's output tokens over the kept shard's: the kept shard divided the deployment's
 * joules by its own tokens (a share of them), the merged run divides them by all of them.
 */
function outputTokenScale(merged: readonly GroupSummary[], kept: ShardResults): Map<string, number> {
  const sumByScenario = (groups: readonly GroupSummary[]): Map<string, number> => {
    const sums = new Map<string, number>();
    for (const g of groups) sums.set(g.scenario, (sums.get(g.scenario) ?? 0) + outputTokensOf(g));
    return sums;
  };
  const keptSums = sumByScenario(kept.summary.groups);
  const scale = new Map<string, number>();
  for (const [scenario, total] of sumByScenario(merged)) {
    const own = keptSums.get(scenario) ?? 0;
    if (own > 0) scale.set(scenario, total / own);
  }
  return scale;
}

/**
 * A phase of the kept shard over every shard's tokens (its output tokens scaled by `scale`, the same share
 * for warmup as for the measured part), so the energy per output token is the deployment's joules over
 * them; null when the kept shard's share is unknown (no output tokens). A shard writes its joules
 * (`energy_j`) and no energy per token; one written before `energy_j` existed wrote joules / its own tokens.
 */
function overAllShards(phase: ServerPhaseSummary, scale: number | undefined): ServerPhaseSummary {
  const joules =
    phase.energy_j ??
    (phase.energy_per_output_token_j === null ? null : phase.energy_per_output_token_j * phase.output_tokens);
  if (joules === null) return phase;
  if (scale === undefined || phase.output_tokens <= 0) return { ...phase, energy_per_output_token_j: null };
  const tokens = phase.output_tokens * scale;
  return { ...phase, output_tokens: Math.round(tokens), energy_per_output_token_j: joules / tokens };
}

/**
 * A merged group with the server side of the kept shard's group of the same key (none without one), its
 * energy per output token over every shard's tokens.
 */
function withServerOf(
  group: GroupSummary,
  shard: ShardResults | null,
  tokenScale: ReadonlyMap<string, number>,
): GroupSummary {
  const { server: _merged, ...rest } = group;
  const server = shard?.summary.groups.find((g) => g.key === group.key)?.server;
  if (server === undefined) return rest;
  const scale = tokenScale.get(group.scenario);
  return {
    ...rest,
    server: {
      measured: server.measured === null ? null : overAllShards(server.measured, scale),
      ...(server.warmup === undefined ? {} : { warmup: overAllShards(server.warmup, scale) }),
    },
  };
}

function startMs(shard: ShardResults): number {
  const ms = Date.parse(shard.summary.started_at);
  return Number.isFinite(ms) ? ms : 0;
}

/** Groups merged by key, in the order they first appear. */
function mergeGroups(shards: readonly ShardResults[]): GroupSummary[] {
  const merged = new Map<string, GroupSummary>();
  for (const shard of shards)
    for (const group of shard.summary.groups) {
      const seen = merged.get(group.key);
      merged.set(group.key, seen === undefined ? group : mergeGroupSummaries(seen, group));
    }
  return [...merged.values()];
}

/** The profile's parsed thresholds as summary.json recorded them (profile.resolved.thresholds). */
function thresholdSpecs(summary: RunSummary): ThresholdSpec[] {
  const resolved = summary.profile.resolved as { thresholds?: unknown } | null;
  const specs = resolved?.thresholds;
  if (!Array.isArray(specs)) return [];
  return specs.filter(
    (s): s is ThresholdSpec =>
      typeof s === 'object' &&
      s !== null &&
      typeof (s as ThresholdSpec).expression === 'string' &&
      typeof (s as ThresholdSpec).metric === 'string' &&
      typeof (s as ThresholdSpec).value === 'number',
  );
}

/** The worst of every shard's health (aggregate/worst-health.ts), every warning named by its shard, and the list. */
function mergeHarness(shards: readonly ShardResults[]): HarnessHealth & { shards: ShardHealth[] } {
  return {
    ...worstHealth(shards.map((s) => ({ label: s.summary.run_id, health: s.summary.harness }))),
    shards: shards.map((s) => ({
      run_id: s.summary.run_id,
      dir: s.dir,
      shard: shardOf(s.summary),
      started_at: s.summary.started_at,
      ended_at: s.summary.ended_at,
      complete: s.summary.complete,
      health: s.summary.harness,
    })),
  };
}
