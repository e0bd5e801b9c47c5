/**
 * The profile's `prompt.prefixes:` block, as written: N distinct shared prefixes of exactly K tokens that
 * requests of a scenario reuse (a few system prompts or documents that many users send), so a server's
 * prompt cache is exercised per prefix group. Defaults are applied in resolve-prefixes.ts, never here.
 */
import { z } from 'zod';
import { MAX_VALUES_PER_LABEL } from '../../metrics/breakdown-summary.js';

/**
 * At most 999 groups: with `none` (requests without a prefix) they are the 1,000 values a label's breakdown
 * keeps apart (metrics/breakdown-summary.ts), so no group is ever counted under `other`.
 */
export const MAX_PREFIX_GROUPS = MAX_VALUES_PER_LABEL - 1;
/** groups x tokens at most: every prefix text is built and held per group (scenario x model x tier). */
export const MAX_PREFIX_TOTAL_TOKENS = 4_000_000;

const SHARE_MESSAGE = 'expected a fraction from 0 to 1 (0.8) or a percentage ("80%")';

export const prefixesSchema = z
  .strictObject({
    groups: z
      .number()
      .int()
      .min(1)
      .max(MAX_PREFIX_GROUPS)
      .meta({
        description: `How many distinct prefixes (p0 ... p<N-1>, at most ${MAX_PREFIX_GROUPS}); a request picks one uniformly (seeded).`,
      }),
    tokens: z.number().int().min(1).meta({ description: 'Tokens of each prefix, exactly.' }),
    share: z
      .union(
        [
          z.number().min(0).max(1),
          z.string().regex(/^\s*(?:100(?:\.0+)?|\d{1,2}(?:\.\d+)?)\s*%\s*$/, { error: SHARE_MESSAGE }),
        ],
        { error: SHARE_MESSAGE },
      )
      .optional()
      .meta({ description: 'Fraction of requests that use a prefix: 0.8 or "80%" (default 1); the rest have none.' }),
    cache_key: z.boolean().optional().meta({
      description: 'Send prompt_cache_key "<scenario>-<hash>-p<i>" with requests that use a prefix (default true).',
    }),
  })
  .meta({
    id: 'prefixes',
    description:
      'N shared prefixes of K tokens: { groups: 8, tokens: 1024, share: 0.8, cache_key: true }; requests are labelled prefix: p<i> or none.',
  });

export type PrefixesInput = z.infer<typeof prefixesSchema>;
