/**
 * The prices a run is costed with, model by model: the profile's `pricing:` first, else the target's
 * public catalog (/public/v1/models, fetched by client/public-catalog.ts), else none. Amounts are parsed
 * once here into atto-dollars (util/usd.ts) so that costing is integer arithmetic.
 */
import type { GroupCost, PriceSource } from '../../metrics/run-summary.js';
import type { ModelPrice } from '../../profile/resolved-profile.js';
import { parseUsd } from '../../util/usd.js';

/** One model's price, parsed: per token (atto-dollars per token) or per hour of a deployment. */
export type ParsedPrice =
  | { readonly kind: 'token'; readonly promptAtto: bigint; readonly completionAtto: bigint }
  | { readonly kind: 'hour'; readonly perHourAtto: bigint };

export interface PricedModel {
  readonly price: ParsedPrice;
  readonly source: PriceSource;
  /** The price as summary.json records it (decimal strings). */
  readonly recorded: GroupCost['pricing'];
}

/** Model id -> its price; a model not in it has none. */
export type PriceBook = ReadonlyMap<string, PricedModel>;

/** Catalog pricing: model id -> USD per token as the catalog's decimal strings. */
export type CatalogPricing = ReadonlyMap<string, { readonly prompt: string; readonly completion: string }>;

/** The profile's prices over the catalog's. A catalog entry whose amounts are no decimals is left out. */
export function priceBook(
  profile: Readonly<Record<string, ModelPrice>> | undefined,
  catalog: CatalogPricing | null,
): PriceBook {
  const book = new Map<string, PricedModel>();
  for (const [model, entry] of catalog ?? []) {
    const priced = parsePrice({ kind: 'token', ...entry }, 'catalog');
    if (priced !== null) book.set(model, priced);
  }
  for (const [model, entry] of Object.entries(profile ?? {})) {
    const priced = parsePrice(entry, 'profile');
    if (priced !== null) book.set(model, priced);
  }
  return book;
}

function parsePrice(entry: ModelPrice, source: PriceSource): PricedModel | null {
  if (entry.kind === 'hour') {
    const perHourAtto = parseUsd(entry.perHour);
    return perHourAtto === null
      ? null
      : { price: { kind: 'hour', perHourAtto }, source, recorded: { per_hour: entry.perHour } };
  }
  const promptAtto = parseUsd(entry.prompt);
  const completionAtto = parseUsd(entry.completion);
  if (promptAtto === null || completionAtto === null) return null;
  return {
    price: { kind: 'token', promptAtto, completionAtto },
    source,
    recorded: { prompt: entry.prompt, completion: entry.completion },
  };
}
