/**
 * A run collector that also prices: everything goes to the real collector (the one owner of the run's
 * numbers, which keeps the exact token totals of ok requests anyway); this one shows that collector to the
 * run's CostMeter (the --max-cost budget reads it) and prices each group's summary at the end (summary.json
 * group `cost`). A decorator through RunnerDeps.createCollector, so a run in one thread, a run in workers
 * (the coordinator's collector) and every capacity step are priced alike, at no cost per request.
 */
import type { RequestRecord } from '../../client/request-record.js';
import type { RecordedValues } from '../../metrics/request-values.js';
import type { GroupSummary } from '../../metrics/run-summary.js';
import type { ResolvedGroup } from '../../profile/resolved-profile.js';
import { groupCost, type TokenTally } from './cost-of.js';
import type { CostMeter } from './cost-meter.js';
import type { LiveGroup } from '../live-thresholds.js';
import type { CollectorOptions, CollectorResult, ProgressSnapshot, RunCollector } from '../types.js';

/** `inner` with pricing on top; `meter` gets every ok request's tokens. */
export function pricedCollector(inner: RunCollector, meter: CostMeter, options: CollectorOptions): RunCollector {
  return new PricedCollector(inner, meter, options);
}

class PricedCollector implements RunCollector {
  readonly #inner: RunCollector;
  readonly #meter: CostMeter;
  readonly #groups: readonly ResolvedGroup[];

  constructor(inner: RunCollector, meter: CostMeter, options: CollectorOptions) {
    this.#inner = inner;
    this.#meter = meter;
    this.#groups = options.groups;
    meter.watch(options.groups, options.runStartUs, (i) => inner.live?.(i));
  }

  started(groupIndex: number, atUs: number): void {
    this.#inner.started(groupIndex, atUs);
  }

  completed(record: RequestRecord, values: RecordedValues): void {
    this.#inner.completed(record, values);
  }

  dropped(groupIndex: number, atUs: number): void {
    this.#inner.dropped(groupIndex, atUs);
  }

  progress(nowUs: number): ProgressSnapshot {
    return this.#inner.progress(nowUs);
  }

  live(groupIndex: number): LiveGroup | undefined {
    return this.#inner.live?.(groupIndex);
  }

  finish(endUs: number): CollectorResult {
    const result = this.#inner.finish(endUs);
    return { ...result, groups: result.groups.map((summary) => this.#withCost(summary)) };
  }

  /** The summary with its `cost` when its model has a price (the group's exact totals: its live numbers). */
  #withCost(summary: GroupSummary): GroupSummary {
    const group = this.#groups.find((g) => g.key === summary.key);
    const priced = this.#meter.book.get(summary.model);
    if (group === undefined || priced === undefined) return summary;
    const live = this.#inner.live?.(group.index);
    const tally: TokenTally = {
      inputTokens: live?.inputTokens ?? 0,
      outputTokens: live?.outputTokens ?? 0,
      requests: live?.ok ?? 0,
    };
    return { ...summary, cost: groupCost(priced, tally, summary.duration_ms) };
  }
}
