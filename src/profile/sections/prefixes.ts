/**
 * The profile's `prompt.prefixes:` section: N distinct shared prefixes of exactly K tokens that requests of
 * a scenario reuse (a few system prompts or documents that many users send), so a server's prompt cache is
 * exercised per prefix group. Its schema, the rules a per-field schema cannot express (it replaces
 * shared_prefix_tokens rather than adding to it, it builds synthetic prompts, it sets prompt_cache_key itself
 * unless cache_key is false, groups x tokens is bounded) and its resolution (the share as a fraction).
 */
import { z } from 'zod';
import { MAX_VALUES_PER_LABEL } from '../../metrics/breakdown-summary.js';
import type { IssuePath, ProfileIssue } from '../profile-issue.js';
import type { PrefixesSpec } from '../resolved-profile.js';

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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `prompt` and `request` as merged for one scenario; `pathOf` gives the path of a field as written. */
export function checkPrefixes(
  prompt: Record<string, unknown>,
  request: unknown,
  pathOf: (key: string, ...rest: string[]) => IssuePath,
): ProfileIssue[] {
  const prefixes = prompt.prefixes;
  if (!isRecord(prefixes)) return [];
  const issues: ProfileIssue[] = [];
  const { groups, tokens } = prefixes;
  if (typeof groups === 'number' && typeof tokens === 'number' && groups * tokens > MAX_PREFIX_TOTAL_TOKENS)
    issues.push({
      path: pathOf('prompt', 'prefixes'),
      atKey: true,
      message: `${groups} groups x ${tokens} tokens is ${groups * tokens} prefix tokens, above the ${MAX_PREFIX_TOTAL_TOKENS} a workload builds and holds (per group of the matrix): use fewer groups or shorter prefixes`,
    });
  if (typeof prompt.shared_prefix_tokens === 'number' && prompt.shared_prefix_tokens > 0)
    issues.push({
      path: pathOf('prompt', 'shared_prefix_tokens'),
      atKey: true,
      message:
        'set shared_prefix_tokens (one prefix for every request) or prefixes (N prefix groups), not both; prefixes: { groups: 1, tokens: K } is one shared prefix with a prompt_cache_key',
    });
  if (prompt.dataset !== undefined)
    issues.push({
      path: pathOf('prompt', 'prefixes'),
      atKey: true,
      message: 'prefixes build synthetic prompts; it does not apply with prompt.dataset (use shared_prefix_tokens)',
    });
  if (prefixes.cache_key !== false && isRecord(request) && request.prompt_cache_key !== undefined)
    issues.push({
      path: pathOf('request', 'prompt_cache_key'),
      atKey: true,
      message: 'prompt.prefixes sends a prompt_cache_key per prefix: remove it here, or set prefixes.cache_key: false',
    });
  return issues;
}

/** `{ prefixes }`, or `{}` when the prompt has none (so the resolved prompt has no key for it). */
export function resolvePrefixes(input: PrefixesInput | undefined): { prefixes?: PrefixesSpec } {
  if (input === undefined) return {};
  const share = input.share ?? 1;
  return {
    prefixes: {
      groups: input.groups,
      tokens: input.tokens,
      share: typeof share === 'number' ? share : Number.parseFloat(share) / 100,
      cacheKey: input.cache_key ?? true,
    },
  };
}
