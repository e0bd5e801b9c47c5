/**
 * What the runner tells the outside world while it runs: a tick per second with a progress snapshot,
 * each finished request (for the streamed requests.csv), and scenario boundaries. Sinks are called
 * synchronously and must return at once; the runner swallows their errors so a broken sink never
 * stops a measurement.
 */
import type { RequestRecord } from '../client/request-record.js';
import type { ProgressSnapshot } from '../aggregate/types.js';
import type { ServerLatest } from '../aggregate/server-metrics/server-latest.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { SweepRate } from './sweep-rates.js';
import type { ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';

export interface RunTick {
  readonly snapshot: ProgressSnapshot;
  /** Scenario running now. */
  readonly scenario: string;
  /** True while some group of the scenario is still in its warmup (counted in nothing yet). */
  readonly warmup: boolean;
  /** Planned length of the whole run (warmups and durations), null when a scenario is bounded by a request count only. */
  readonly plannedMs: number | null;
  /** Requests planned in total, when every scenario has a request count (for "time left" without durations). */
  readonly plannedRequests: number | null;
  /**
   * target.server_metrics: each endpoint at its latest scrape (aggregate/server-metrics/server-latest.ts),
   * as of the tick, read on demand (once, whoever calls first); absent or null when the run does not scrape
   * (nor in a worker thread).
   */
  readonly server?: (() => ServerLatest) | null;
}

export interface RunEvents {
  /**
   * The run's clock starts (after the workloads are built and any `--start-at` wait): every time of its
   * results (requests.csv's start_ms, the time series' seconds, summary.json's started_at) counts from here.
   */
  onRunStart?(runStartUs: number): void;
  onTick?(tick: RunTick): void;
  /**
   * Every request, warmup included (warmup=true), when it has ended, with its token counts (made once;
   * the object is reused for the next record: copy what you keep).
   */
  onRecord?(record: RequestRecord, group: ResolvedGroup, values: RecordedValues): void;
  onScenarioStart?(scenario: ResolvedScenario, groups: readonly ResolvedGroup[]): void;
  /** `--start-at`: the run waits until `untilWallMs` (epoch ms); `waitMs` <= 0 means the time is past. */
  onStartAt?(wait: { readonly untilWallMs: number; readonly waitMs: number }): void;
  /** `--shard`: this shard's share of `scenario` is zero, so it sends nothing for it (`reason` says why). */
  onShardIdle?(scenario: ResolvedScenario, reason: string): void;
  /** `--workers`: worker `worker`'s share of `scenario` is zero (fewer requests or streams than workers). */
  onWorkerIdle?(scenario: string, worker: number, reason: string): void;
  /** A sweep's rate phase starts for `group` at `rate`, from the measured one-at-a-time and throughput rates. */
  onSweepRate?(group: ResolvedGroup, measured: SweepRate): void;
}
