/**
 * The profile's `pricing:` block, as written: per model, USD per token as decimal strings like the
 * catalog's (`/public/v1/models` pricing: `{ prompt: "0.0000002", completion: "0.0000004" }`), or USD per
 * hour of a dedicated deployment (`{ per_hour: 12.5 }`). It prices summary.json `cost` and the --max-cost
 * budget, and overrides the target's catalog model by model. Strings keep such prices exact (util/usd.ts);
 * a plain number is taken as the decimal it prints as.
 */
import { z } from 'zod';

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
