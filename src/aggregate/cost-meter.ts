/**
 * The spend of a run (or a whole capacity search) so far, for the --max-cost budget and the search's total
 * cost: every ok request's tokens by model, priced exactly (cost-of.ts), plus each per-hour deployment
 * from the first start on. Fed by the priced collectors (cost-collector.ts) as requests end; read on the
 * runner's tick (aggregate/early-stop.ts) and at the end.
 */
import type { PriceSource, RunCost } from '../metrics/run-summary.js';
import type { ResolvedGroup } from '../profile/resolved-profile.js';
import { usdNumber } from '../util/usd.js';
import { costAtto, costSource, type TokenTally } from './cost-of.js';
import type { PriceBook } from './cost-prices.js';

/** `--max-cost`: the run stops when what it spent reaches `maxUsd`. */
export interface SpendBudget {
  readonly maxUsd: number;
  /** USD spent so far (`nowUs`: the client's clock, for per-hour prices). */
  spentUsd(nowUs: number): number;
}

export class CostMeter {
  readonly book: PriceBook;
  /** Tokens of ok requests by model. */
  readonly #tallies = new Map<string, TokenTally>();
  /** Every model run, priced or not. */
  readonly #models = new Set<string>();
  #startUs = Number.NaN;

  constructor(book: PriceBook) {
    this.book = book;
  }

  /** A run (or a step) starts with `groups`: per-hour deployments are paid from the first start. */
  begin(groups: readonly ResolvedGroup[], atUs: number): void {
    if (Number.isNaN(this.#startUs)) this.#startUs = atUs;
    for (const group of groups) if (group.model !== null) this.#models.add(group.model);
  }

  /** An ok request of `model` ended with these token counts (NaN: unknown, priced as 0). */
  add(model: string, inputTokens: number, outputTokens: number): void {
    let tally = this.#tallies.get(model);
    if (tally === undefined) {
      tally = { inputTokens: 0, outputTokens: 0, requests: 0 };
      this.#tallies.set(model, tally);
    }
    if (!Number.isNaN(inputTokens)) tally.inputTokens += inputTokens;
    if (!Number.isNaN(outputTokens)) tally.outputTokens += outputTokens;
    tally.requests++;
  }

  /** Atto-dollars spent by `nowUs`. */
  spentAtto(nowUs: number): bigint {
    const empty: TokenTally = { inputTokens: 0, outputTokens: 0, requests: 0 };
    const elapsedUs = Number.isNaN(this.#startUs) ? 0 : Math.max(0, nowUs - this.#startUs);
    let atto = 0n;
    for (const model of this.#models) {
      const priced = this.book.get(model);
      if (priced !== undefined) atto += costAtto(priced.price, this.#tallies.get(model) ?? empty, elapsedUs);
    }
    return atto;
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
