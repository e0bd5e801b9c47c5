/**
 * A run collector that also prices: it hands everything on to the real collector (the one owner of the
 * run's numbers) and keeps, per group, the exact token totals of the ok requests, which it adds to the
 * run's CostMeter as they come (the --max-cost budget reads it) and prices into each group's summary at
 * the end (summary.json group `cost`). A decorator through RunnerDeps.createCollector, so a run in one
 * thread, a run in workers (the coordinator's collector) and every capacity step are priced alike.
 */
import type { RequestRecord } from '../client/request-record.js';
import type { RecordedValues } from '../metrics/request-values.js';
import type { GroupSummary } from '../metrics/run-summary.js';
import type { ResolvedGroup } from '../profile/resolved-profile.js';
import { groupCost, type TokenTally } from './cost-of.js';
import type { CostMeter } from './cost-meter.js';
import type { LiveGroup } from './live-thresholds.js';
import type { CollectorOptions, CollectorResult, ProgressSnapshot, RunCollector } from './types.js';

/** `inner` with pricing on top; `meter` gets every ok request's tokens. */
export function pricedCollector(inner: RunCollector, meter: CostMeter, options: CollectorOptions): RunCollector {
  return new PricedCollector(inner, meter, options);
}

class PricedCollector implements RunCollector {
  readonly #inner: RunCollector;
  readonly #meter: CostMeter;
  readonly #groups: (ResolvedGroup | undefined)[] = [];
  readonly #tallies: (TokenTally | undefined)[] = [];

  constructor(inner: RunCollector, meter: CostMeter, options: CollectorOptions) {
    this.#inner = inner;
    this.#meter = meter;
    for (const group of options.groups) this.#groups[group.index] = group;
    meter.begin(options.groups, options.runStartUs);
  }

  started(groupIndex: number, atUs: number): void {
    this.#inner.started(groupIndex, atUs);
  }

  completed(record: RequestRecord, values: RecordedValues): void {
    this.#inner.completed(record, values);
    // The collector's own rule: warmup counts in nothing, and only ok requests count tokens.
    if (record.warmup || record.errorClass !== null) return;
    const group = this.#groups[record.groupIndex];
    if (group === undefined || group.model === null) return;
    let tally = this.#tallies[record.groupIndex];
    if (tally === undefined) {
      tally = { inputTokens: 0, outputTokens: 0, requests: 0 };
      this.#tallies[record.groupIndex] = tally;
    }
    if (!Number.isNaN(values.input_tokens)) tally.inputTokens += values.input_tokens;
    if (!Number.isNaN(values.output_tokens)) tally.outputTokens += values.output_tokens;
    tally.requests++;
    this.#meter.add(group.model, values.input_tokens, values.output_tokens);
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

  /** The summary with its `cost` when its model has a price. */
  #withCost(summary: GroupSummary): GroupSummary {
    const index = this.#groups.findIndex((group) => group?.key === summary.key);
    const priced = this.#meter.book.get(summary.model);
    if (index < 0 || priced === undefined) return summary;
    const tally = this.#tallies[index] ?? { inputTokens: 0, outputTokens: 0, requests: 0 };
    return { ...summary, cost: groupCost(priced, tally, summary.duration_ms) };
  }
}
