/**
 * What the coordinator of `run --workers N` (run-in-workers.ts) and its worker threads (worker-share.ts)
 * say to each other. A worker runs its share of the profile and forwards the facts a collector needs, in
 * batches: request starts, drops, and every finished record with its values. The coordinator owns the one
 * collector of the run, so histograms, counters, time series and requests.csv are those of a single run,
 * exactly, whatever the number of workers.
 */
import type { ProxySettings } from '../client/proxy.js';
import type { RequestRecord } from '../client/request-record.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { HarnessHealth } from '../metrics/run-summary.js';
import type { ResolvedProfile } from '../profile/resolved-profile.js';
import type { ShardSpec } from '../schedule/shard.js';

/** Everything a worker needs to run its share (structured-cloned into the thread). */
export interface WorkerInit {
  /** 1-based, of `workerCount`. */
  readonly workerIndex: number;
  readonly workerCount: number;
  /** The share this worker sends: `--shard i/N` split again over the workers (schedule/shard.ts subShard). */
  readonly share: ShardSpec;
  readonly profile: ResolvedProfile;
  readonly baseUrl: string;
  /** Stays in memory: never logged, never in a message back. */
  readonly apiKey: string | null;
  readonly version: string;
  readonly proxy: ProxySettings | null;
  readonly tickIntervalMs: number;
  /** RunControl.harnessRampMs of the coordinator's run (0: none). */
  readonly harnessRampMs: number;
  /**
   * The coordinator thread's (monotonic clock - performance.now()) in ms: each thread's performance.now()
   * starts with the thread, so a worker shifts its clocks by the difference (util/clock.ts) and every
   * timestamp it records is on the coordinator's time line.
   */
  readonly clockAnchorMs: number;
}

/** A request was sent (`started`) or an arrival dropped (`dropped`): group index and time (µs). */
export type CountEvent = readonly ['started' | 'dropped', number, number];
/** A request ended: its record (answer text left out: it is counted already) and a copy of its values. */
export type RecordEvent = readonly ['record', RequestRecord, RecordedValues];
export type WorkerEvent = CountEvent | RecordEvent;

export type WorkerMessage =
  /** Models resolved, workloads built: waiting for `go`. Carries the profile as run (models resolved). */
  | {
      readonly type: 'ready';
      readonly profile: ResolvedProfile;
      readonly workloadHash: string;
      readonly tokenizer: string;
    }
  | { readonly type: 'events'; readonly events: readonly WorkerEvent[] }
  /** Once a second: the scenario running and whether some group is warming up. */
  | { readonly type: 'status'; readonly scenario: string; readonly warmup: boolean }
  | { readonly type: 'idle'; readonly scenario: string; readonly reason: string }
  /** The share ran to its end (or was interrupted); every event was sent before this. */
  | {
      readonly type: 'done';
      readonly complete: boolean;
      readonly interrupted: boolean;
      readonly harness: HarnessHealth;
    }
  /** The share could not run (unreachable target, bad profile, ...): an InferbenchError's parts. */
  | { readonly type: 'failed'; readonly code: string; readonly message: string; readonly hint: string | null };

export type CoordinatorMessage = { readonly type: 'go' } | { readonly type: 'interrupt' };
