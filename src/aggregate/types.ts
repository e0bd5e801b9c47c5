/**
 * The collector's contract: the one owner of a run's numbers (STYLE 2). The runner feeds it finished
 * records; the progress line reads snapshots; the report reads the final result. Nothing else keeps
 * per-request data.
 */
import type { RequestRecord } from '../client/request-record.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { ResolvedGroup } from '../profile/resolved-profile.js';
import type { GroupSummary, TimeSeriesPoint } from '../metrics/run-summary.js';
import type { LiveGroup } from './live-thresholds.js';

export interface CollectorOptions {
  /** Groups with their models resolved (model never null here). */
  readonly groups: readonly ResolvedGroup[];
  /** The profile's SLO (metric.stat -> limit), for goodput. */
  readonly slo: Readonly<Record<string, number>>;
  /** Monotonic microseconds of the run's start: second 0 of the time series. */
  readonly runStartUs: number;
  /**
   * Keep the last seconds of the first GROUP_WINDOWS groups (progress-window.ts) for the live dashboard's
   * charts; off by default, so a run without a live view pays nothing per request for them.
   */
  readonly groupWindows?: boolean;
  /** Groups that keep no dialect facts and have no `dialects` (their API's: dialect-registry.ts groupsWithoutDialects). */
  readonly withoutDialects?: ReadonlySet<number>;
}

export interface ProgressSnapshot {
  readonly elapsedMs: number;
  readonly started: number;
  readonly completed: number;
  readonly failed: number;
  readonly throttled: number;
  readonly dropped: number;
  readonly inFlight: number;
  /** Over the last few seconds. */
  readonly requestsPerS: number;
  readonly outputTokensPerS: number;
  readonly ttftP50Ms: number | null;
}

export interface CollectorResult {
  readonly groups: GroupSummary[];
  readonly timeSeries: TimeSeriesPoint[];
}

export interface RunCollector {
  /** A request was sent (for in-flight and `started` counts). */
  started(groupIndex: number, atUs: number): void;
  /**
   * A request ended in any way, with its values (derived once: measure/request-values.ts; the same go to
   * requests.csv).
   * Warmup records are counted in no metric.
   */
  completed(record: RequestRecord, values: RecordedValues): void;
  /** An open-loop arrival dropped because max_concurrency was reached. */
  dropped(groupIndex: number, atUs: number): void;
  progress(nowUs: number): ProgressSnapshot;
  /**
   * A group's numbers as they stand, read in place (never copied): for checks during the run
   * (early-stop.ts). Optional: a collector that keeps no numbers (a worker's outbox) has none.
   */
  live?(groupIndex: number): LiveGroup | undefined;
  /** Final summaries per group (in group order) and the per-second time series. */
  finish(endUs: number): CollectorResult;
}
