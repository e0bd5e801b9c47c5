/**
 * `pricing:` as written -> model id -> ModelPrice, every amount a canonical decimal string (util/usd.ts),
 * so that "2e-7", 0.0000002 and "0.0000002" are one price and summary.json records it as the catalog would.
 */
import { canonicalUsd } from '../util/usd.js';
import type { PricingInput } from './sections/pricing.js';
import type { ModelPrice } from './resolved-profile.js';

/** `{ pricing }` when the profile sets it, else nothing (profiles without it resolve as before). */
export function resolvePricing(input: PricingInput | undefined): { pricing?: Readonly<Record<string, ModelPrice>> } {
  if (input === undefined) return {};
  const pricing: Record<string, ModelPrice> = {};
  for (const [model, price] of Object.entries(input)) {
    // The schema admitted only decimals, so canonicalUsd cannot fail here.
    const usd = (value: string | number): string => canonicalUsd(value) ?? '0';
    pricing[model] =
      'per_hour' in price
        ? { kind: 'hour', perHour: usd(price.per_hour) }
        : { kind: 'token', prompt: usd(price.prompt), completion: usd(price.completion) };
  }
  return { pricing };
}
