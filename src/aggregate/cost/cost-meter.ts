/**
 * The spend of a run (or a whole capacity search) so far, for the --max-cost budget and the search's total
 * cost: every ok request's tokens by model, priced exactly (cost-of.ts), plus each per-hour deployment
 * from the first start on. It counts nothing itself: it reads the exact token totals the collectors keep
 * anyway (each run's, or each capacity step's, watched through cost-collector.ts), on the runner's tick
 * (aggregate/early-stop.ts) and at the end, so pricing adds no work per request.
 */
import type { PriceSource, RunCost } from '../../metrics/run-summary.js';
import type { ResolvedGroup } from '../../profile/resolved-profile.js';
import { usdNumber } from '../../util/usd.js';
import { costAtto, costSource, type TokenTally } from './cost-of.js';
import type { PriceBook } from './cost-prices.js';
import type { LiveGroups } from '../early-stop.js';

/** `--max-cost`: the run stops when what it spent reaches `maxUsd`. */
export interface SpendBudget {
  readonly maxUsd: number;
  /** USD spent so far (`nowUs`: the client's clock, for per-hour prices). */
  spentUsd(nowUs: number): number;
}

export class CostMeter {
  readonly book: PriceBook;
  /** The collectors whose ok requests are spent, with their groups. */
  readonly #sources: { readonly groups: readonly ResolvedGroup[]; readonly live: LiveGroups }[] = [];
  /** Every model run, priced or not. */
  readonly #models = new Set<string>();
  #startUs = Number.NaN;

  constructor(book: PriceBook) {
    this.book = book;
  }

  /**
   * A run (or a capacity step) starts with `groups`, its collector's numbers read through `live`; per-hour
   * deployments are paid from the first start.
   */
  watch(groups: readonly ResolvedGroup[], atUs: number, live: LiveGroups): void {
    if (Number.isNaN(this.#startUs)) this.#startUs = atUs;
    for (const group of groups) if (group.model !== null) this.#models.add(group.model);
    this.#sources.push({ groups, live });
  }

  /** Atto-dollars spent by `nowUs`. */
  spentAtto(nowUs: number): bigint {
    const tallies = this.#tallies();
    const empty: TokenTally = { inputTokens: 0, outputTokens: 0, requests: 0 };
    const elapsedUs = Number.isNaN(this.#startUs) ? 0 : Math.max(0, nowUs - this.#startUs);
    let atto = 0n;
    for (const model of this.#models) {
      const priced = this.book.get(model);
      if (priced !== undefined) atto += costAtto(priced.price, tallies.get(model) ?? empty, elapsedUs);
    }
    return atto;
  }

  /** Tokens of ok requests by model, over every collector watched. */
  #tallies(): Map<string, TokenTally> {
    const tallies = new Map<string, TokenTally>();
    for (const { groups, live } of this.#sources)
      for (const group of groups) {
        const numbers = group.model === null ? undefined : live(group.index);
        if (numbers === undefined || group.model === null) continue;
        const tally = tallies.get(group.model) ?? { inputTokens: 0, outputTokens: 0, requests: 0 };
        tally.inputTokens += numbers.inputTokens;
        tally.outputTokens += numbers.outputTokens;
        tally.requests += numbers.ok;
        tallies.set(group.model, tally);
      }
    return tallies;
  }

  spentUsd(nowUs: number): number {
    return usdNumber(this.spentAtto(nowUs));
  }

  /** The whole spend as summary.json `cost`; undefined when no model run had a price. */
  runCost(nowUs: number): RunCost | undefined {
    const sources = new Set<PriceSource>();
    const unpriced: string[] = [];
    for (const model of this.#models) {
      const priced = this.book.get(model);
      if (priced === undefined) unpriced.push(model);
      else sources.add(priced.source);
    }
    if (sources.size === 0) return undefined;
    return { usd: this.spentUsd(nowUs), source: costSource(sources), unpriced_models: unpriced.sort() };
  }

  /** The budget `maxUsd` on this meter's spend. */
  budget(maxUsd: number): SpendBudget {
    return { maxUsd, spentUsd: (nowUs) => this.spentUsd(nowUs) };
  }
}
