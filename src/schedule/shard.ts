/**
 * Sharding (`run --shard i/N`): the deterministic 1/N share of every scenario that shard i sends, so that
 * N shards started together (on N machines, or the N pods of a Kubernetes Indexed Job) send, together,
 * the load of one run. Pure: the runner applies it to the resolved profile and maps each shard's request
 * numbers onto the single run's workload indices (shard i takes i-1, i-1+N, i-1+2N, ...), so the prompts
 * of all shards together are exactly those of one unsharded run.
 *
 * Whole numbers (concurrency, max_concurrency, request counts, closed-loop stage targets) are split as
 * evenly as possible: floor(n/N) each, plus one for the first n mod N shards, so the shares add up to n.
 * Rates (and open-loop stage targets) are divided by N. The scenario seed is left alone (it decides the
 * prompts, and the workload hash that merge compares); only the arrival stream's seed differs per shard.
 */
import { InferbenchError } from '../errors.js';
import { hashString } from '../util/rng.js';
import { traceOffsetsMs } from './trace-schedule.js';
import type { LoadSpec, LoadStage, ResolvedProfile, ResolvedScenario } from '../profile/resolved-profile.js';

/** Shard `index` (1-based) of `count`. */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

/** One scenario's share for a shard, and whether that share sends nothing at all. */
export interface ScenarioShare {
  readonly scenario: ResolvedScenario;
  /** Why this shard sends nothing for the scenario (its share is zero); null when it sends something. */
  readonly idleReason: string | null;
}

/** A profile's share for a shard: the scenarios with their shares, in the profile's order. */
export interface ProfileShare {
  readonly profile: ResolvedProfile;
  /** Scenario name -> why this shard sends nothing for it (scenarios whose share is zero). */
  readonly idle: ReadonlyMap<string, string>;
}

const SHARD_PATTERN = /^\s*(\d+)\s*\/\s*(\d+)\s*$/;

/** Parses `i/N` (1 <= i <= N); anything else is a BAD_USAGE error (exit 2). */
export function parseShard(text: string): ShardSpec {
  const match = SHARD_PATTERN.exec(text);
  const index = match ? Number(match[1]) : Number.NaN;
  const count = match ? Number(match[2]) : Number.NaN;
  if (!match || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1 || index < 1) {
    throw new InferbenchError('BAD_USAGE', `--shard ${JSON.stringify(text)} is not of the form i/N`, {
      hint: 'e.g. --shard 2/4 runs the second of four shards (1 <= i <= N)',
    });
  }
  if (index > count) {
    throw new InferbenchError('BAD_USAGE', `--shard ${text}: shard ${index} does not exist among ${count}`, {
      hint: `shards are numbered 1 to ${count}`,
    });
  }
  return { index, count };
}

/** Shard i's part of a whole number n: floor(n/N), plus one for the first n mod N shards. */
export function splitEvenly(total: number, shard: ShardSpec): number {
  const whole = Math.max(0, Math.round(total));
  const base = Math.floor(whole / shard.count);
  return base + (shard.index <= whole % shard.count ? 1 : 0);
}

/** The share of a load: concurrency and closed-loop stage targets split evenly, rates divided by N. */
export function shardLoad(load: LoadSpec, shard: ShardSpec): LoadSpec {
  if (load.mode === 'concurrency') {
    return {
      ...load,
      concurrency: splitEvenly(load.concurrency, shard),
      stages: shardStages(load.stages, (target) => splitEvenly(target, shard)),
    };
  }
  return {
    ...load,
    rate: load.rate / shard.count,
    // A ceiling of 0 would drop every arrival: each shard keeps at least one slot.
    maxConcurrency: Math.max(1, splitEvenly(load.maxConcurrency, shard)),
    stages: shardStages(load.stages, (target) => target / shard.count),
    // A trace's share is every count-th record (trace-schedule.ts), the workload indices this shard sends.
    ...(load.trace === undefined ? {} : { trace: { ...load.trace, shard } }),
  };
}

function shardStages(
  stages: readonly LoadStage[] | null,
  share: (target: number) => number,
): readonly LoadStage[] | null {
  return stages === null ? null : stages.map((stage) => ({ ...stage, target: share(stage.target) }));
}

/** A scenario's share: its load, request count and warmup request count; idle when the share sends nothing. */
export function shardScenario(scenario: ResolvedScenario, shard: ShardSpec): ScenarioShare {
  const load = shardLoad(scenario.load, shard);
  const requests = scenario.requests === null ? null : splitEvenly(scenario.requests, shard);
  const warmupRequests = splitEvenly(scenario.warmupRequests, shard);
  const share: ResolvedScenario = { ...scenario, load, requests, warmupRequests };
  return { scenario: share, idleReason: idleReason(scenario, share, shard) };
}

function idleReason(whole: ResolvedScenario, share: ResolvedScenario, shard: ShardSpec): string | null {
  if (whole.requests !== null && share.requests === 0)
    return `requests ${whole.requests} split over ${shard.count} shards leaves none to shard ${shard.index}`;
  if (share.load.mode === 'concurrency' && peakConcurrency(share.load) === 0) {
    const peak = whole.load.mode === 'concurrency' ? peakConcurrency(whole.load) : 0;
    return `concurrency ${peak} split over ${shard.count} shards leaves none to shard ${shard.index}`;
  }
  // A trace's share is every count-th record from index-1: a short trace leaves the last shards none.
  if (share.load.mode === 'rate' && share.load.trace !== undefined && traceOffsetsMs(share.load.trace).length === 0) {
    const records = whole.load.mode === 'rate' && whole.load.trace ? traceOffsetsMs(whole.load.trace).length : 0;
    return `a trace of ${records} records split over ${shard.count} shards leaves none to shard ${shard.index}`;
  }
  return null;
}

function peakConcurrency(load: Extract<LoadSpec, { mode: 'concurrency' }>): number {
  const stages = load.stages ?? [];
  return stages.length > 0 ? Math.max(...stages.map((stage) => stage.target)) : load.concurrency;
}

/** Every scenario's share for `shard`; groups, thresholds and everything else are left as they are. */
export function shardProfile(profile: ResolvedProfile, shard: ShardSpec): ProfileShare {
  const idle = new Map<string, string>();
  const scenarios = profile.scenarios.map((scenario) => {
    const share = shardScenario(scenario, shard);
    if (share.idleReason !== null) idle.set(scenario.name, share.idleReason);
    return share.scenario;
  });
  return { profile: { ...profile, scenarios }, idle };
}

/**
 * The seed of a shard's arrival stream, derived from the group's schedule seed and the shard, so shards do
 * not arrive in lockstep. One shard of one (or no shard) keeps the seed of an unsharded run.
 */
export function shardScheduleSeed(seed: number, shard: ShardSpec | null): number {
  if (shard === null || shard.count === 1) return seed >>> 0;
  return (seed ^ hashString(`shard ${shard.index}/${shard.count}`)) >>> 0;
}

/** The single run's workload index of this shard's `local`-th request (0-based): i-1 + local*N. */
export function shardWorkloadIndex(local: number, shard: ShardSpec | null): number {
  return shard === null ? local : shard.index - 1 + local * shard.count;
}

/** The suffix of a shard's run id and folder name, e.g. `shard-2-of-4`. */
export function shardLabel(shard: ShardSpec): string {
  return `shard-${shard.index}-of-${shard.count}`;
}

/**
 * Worker `worker` (1-based) of `workers` within `outer` (`--shard i/N`, or null for the whole run) as one
 * shard of N x workers: index (i-1) + (worker-1) x N + 1. Its workload indices are those of shard i, taken
 * every workers-th; and since the shares of N x workers split whole numbers as evenly as shard i's share is
 * split over the workers, the workers' counts add up exactly to shard i's.
 */
export function subShard(outer: ShardSpec | null, worker: number, workers: number): ShardSpec {
  const base = outer ?? { index: 1, count: 1 };
  return { index: base.index - 1 + (worker - 1) * base.count + 1, count: base.count * workers };
}
