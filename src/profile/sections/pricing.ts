/**
 * The profile's `pricing:` section: per model, USD per token as decimal strings like the
 * catalog's (`/public/v1/models` pricing: `{ prompt: "0.0000002", completion: "0.0000004" }`), or USD per
 * hour of a dedicated deployment (`{ per_hour: 12.5 }`). It prices summary.json `cost` and the --max-cost
 * budget, and overrides the target's catalog model by model. Strings keep such prices exact (util/usd.ts);
 * a plain number is taken as the decimal it prints as. Resolved to model id -> ModelPrice, every amount a
 * canonical decimal string, so that "2e-7", 0.0000002 and "0.0000002" are one price and summary.json
 * records it as the catalog would.
 */
import { z } from 'zod';
import { canonicalUsd } from '../../util/usd.js';
import type { ModelPrice } from '../resolved-profile.js';

const USD_MESSAGE = 'expected USD as a non-negative decimal, e.g. "0.0000002" (a string keeps it exact)';

const usd = z.union(
  [z.string().regex(/^\s*\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$/, { error: USD_MESSAGE }), z.number().nonnegative()],
  {
    error: USD_MESSAGE,
  },
);

const perToken = z.strictObject({
  prompt: usd.meta({ description: 'USD per input (prompt) token, e.g. "0.0000002".' }),
  completion: usd.meta({ description: 'USD per output (completion) token, reasoning included, e.g. "0.0000004".' }),
});

const perHour = z.strictObject({
  per_hour: z
    .union([z.number().positive(), z.string().regex(/^\s*\d+(?:\.\d+)?\s*$/, { error: USD_MESSAGE })], {
      error: USD_MESSAGE,
    })
    .meta({ description: 'USD per hour of a dedicated deployment: a group costs it over its wall time.' }),
});

/** `pricing:` model id -> its price. */
export const pricingSchema = z
  .record(
    z.string().min(1),
    z.union([perToken, perHour], { error: 'expected { prompt, completion } (USD per token) or { per_hour } (USD)' }),
  )
  .meta({
    id: 'pricing',
    description:
      'Per model: { prompt: "0.0000002", completion: "0.0000004" } (USD per token, as the catalog gives them) or { per_hour: 12.5 } (a dedicated deployment). Overrides the target\'s /public/v1/models pricing.',
  });

export type PricingInput = z.infer<typeof pricingSchema>;

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
