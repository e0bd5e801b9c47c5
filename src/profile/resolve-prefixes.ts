/** Resolves `prompt.prefixes` as written into a PrefixesSpec: the share as a fraction, every default applied. */
import type { PrefixesInput } from './sections/prefixes.js';
import type { PrefixesSpec } from './resolved-profile.js';

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
