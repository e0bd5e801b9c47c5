/**
 * What requests cost, from their token totals and a price (aggregate/cost-prices.ts): per token, input x
 * prompt + output x completion, in integer atto-dollars (exact); per hour, the deployment over a wall time
 * (rounded to the atto-dollar). A group's cost (summary.json group `cost`) and a run's (`cost`) are made here.
 *
 * Priced are the ok requests' tokens, as the group's throughput counts them: the totals are priced (one
 * multiplication per group, exact), and requests.csv's cost_usd prices each row alike
 * (report/request-cost-cell.ts), so the rows add up to the group's cost.
 */
import type { GroupCost, GroupSummary, PriceSource, RunCost } from '../../metrics/run-summary.js';
import { count, divideRounded, parseUsd, usdNumber } from '../../util/usd.js';
import type { ParsedPrice, PricedModel } from './cost-prices.js';

/** Input and output tokens of a group's ok requests, and how many they were. */
export interface TokenTally {
  inputTokens: number;
  outputTokens: number;
  requests: number;
}

const US_PER_HOUR = 3_600_000_000n;

/** Atto-dollars of `tally` at `price`; a per-hour price is paid over `durationUs`. */
export function costAtto(price: ParsedPrice, tally: TokenTally, durationUs: number): bigint {
  if (price.kind === 'hour') return divideRounded(price.perHourAtto * count(durationUs), US_PER_HOUR);
  return count(tally.inputTokens) * price.promptAtto + count(tally.outputTokens) * price.completionAtto;
}

/** A group's cost: its ok requests' tokens (or its duration, per hour) at its model's price. */
export function groupCost(priced: PricedModel, tally: TokenTally, durationMs: number): GroupCost {
  const atto = costAtto(priced.price, tally, durationMs * 1000);
  return {
    usd: usdNumber(atto),
    source: priced.source,
    pricing: priced.recorded,
    input_tokens: tally.inputTokens,
    output_tokens: tally.outputTokens,
    per_million_output_tokens: ratio(atto, 1_000_000n, tally.outputTokens),
    per_thousand_requests: ratio(atto, 1000n, tally.requests),
  };
}

/** Atto-dollars per nano-dollar: unit costs are rounded to 1e-9 USD (a total never is). */
const ATTO_PER_NANO = 1_000_000_000n;

/** atto x scale / n in USD, rounded to the nano-dollar, or null when n is 0. */
function ratio(atto: bigint, scale: bigint, n: number): number | null {
  if (n <= 0) return null;
  return usdNumber(divideRounded(atto * scale, count(n) * ATTO_PER_NANO) * ATTO_PER_NANO);
}

/**
 * The run's cost from its groups': token-priced groups add up (their USD read back as exact decimals), a
 * per-hour deployment is paid once per model over the run's wall time. Undefined when no group has a cost.
 */
export function runCost(groups: readonly GroupSummary[], wallMs: number): RunCost | undefined {
  let atto = 0n;
  const perHour = new Map<string, bigint>();
  const sources = new Set<PriceSource>();
  const unpriced = new Set<string>();
  for (const group of groups) {
    const cost = group.cost;
    if (cost === undefined) {
      unpriced.add(group.model);
      continue;
    }
    sources.add(cost.source);
    if ('per_hour' in cost.pricing) perHour.set(group.model, parseUsd(cost.pricing.per_hour) ?? 0n);
    else atto += parseUsd(cost.usd) ?? 0n;
  }
  if (sources.size === 0) return undefined;
  for (const perHourAtto of perHour.values())
    atto += costAtto({ kind: 'hour', perHourAtto }, { inputTokens: 0, outputTokens: 0, requests: 0 }, wallMs * 1000);
  return { usd: usdNumber(atto), source: costSource(sources), unpriced_models: [...unpriced].sort() };
}

/** 'profile', 'catalog', or 'mixed' when both priced some model. */
export function costSource(sources: ReadonlySet<PriceSource>): RunCost['source'] {
  return sources.size === 1 ? ([...sources][0] as PriceSource) : 'mixed';
}
