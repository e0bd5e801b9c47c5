/**
 * The rules of `prompt.prefixes` a per-field schema cannot express: it replaces shared_prefix_tokens (one
 * prefix for every request) rather than adding to it, it builds synthetic prompts (a dataset brings its
 * own), it sets prompt_cache_key itself unless cache_key is false, and groups x tokens is bounded (every
 * prefix text is built and held when the workload is built).
 */
import { MAX_PREFIX_TOTAL_TOKENS } from './sections/prefixes.js';
import type { IssuePath, ProfileIssue } from './profile-issue.js';

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
