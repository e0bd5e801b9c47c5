/**
 * "Prefix caching confirmed": for a scenario whose workload aims at the prompt cache (`prompt.prefixes`,
 * `prompt.shared_prefix_tokens`, sessions and tool loops that resend their history), the client's view of
 * a phase (usage `prompt_tokens_details.cached_tokens` summed over its requests / their prompt tokens) beside
 * the server's own (`prefix_cache_hit_ratio` over the same window: hits / queries from its counters'
 * increases) and what the workload intended (prompt.prefixes: the prefix tokens of the requests that carried
 * one / their prompt tokens), and whether client and server agree within PREFIX_CACHE_TOLERANCE.
 * Pure: the runner tallies each finished request (tallyCachedTokens) and hands the tally and the server's
 * phase here. A ratio with nothing to compute it from is absent, never 0.
 */
import type { PrefixCacheSummary, ServerPhaseSummary } from '../../metrics/server-summary.js';
import type { ResolvedGroup, ResolvedScenario } from '../../profile/resolved-profile.js';

/**
 * Client and server agree when their ratios differ by at most this, absolutely (the edge agrees). The two
 * count the same tokens (vLLM's usage cached_tokens is the request's num_cached_tokens, its hits counter the
 * sum of them) but not over quite the same requests: the server's counters are read between the scrapes
 * inside the window (requests prefilled after the last one are not in them, warmup requests prefilled after
 * the first are), they count every client of the endpoint, a preempted request is queried again, and a
 * fully cached prompt has its last block recomputed. A few points apart is that; 0.10 is a cache that did
 * not do what the client was told (a router spreading a prefix over replicas, usage from another layer).
 */
export const PREFIX_CACHE_TOLERANCE = 0.1;
/** Floating-point slack, so that 0.6 - 0.5 (0.09999999999999998 or 0.10000000000000009) sits on the edge. */
const EDGE_SLACK = 1e-9;

/** What one group's requests aim at, or null when the group does not aim at the prompt cache. */
export interface CacheAim {
  /** Prefix tokens of a request that carries a prefix (prompt.prefixes); null: the intended share is not known. */
  readonly prefixTokens: number | null;
}

/** A group's aim: its mix class's prompt (or the scenario's) and the scenario's session or tool loop. */
export function cacheAimOf(scenario: ResolvedScenario, group: ResolvedGroup): CacheAim | null {
  const mixClass = group.mixClass == null ? undefined : scenario.mix?.find((c) => c.name === group.mixClass);
  const prompt = mixClass?.prompt ?? scenario.prompt;
  // A conversation resends its history: what it should find cached depends on the turns' lengths.
  const resends = scenario.session !== undefined || scenario.toolLoop !== undefined;
  if (prompt.prefixes !== undefined) return { prefixTokens: resends ? null : prompt.prefixes.tokens };
  if (resends || prompt.sharedPrefixTokens > 0) return { prefixTokens: null };
  return null;
}

/** A phase's requests as the client saw them (only those whose usage said cached_tokens). */
export interface CacheTally {
  /** Requests whose usage had prompt_tokens_details.cached_tokens. */
  requests: number;
  promptTokens: number;
  cachedTokens: number;
  /** Prefix tokens the workload put in those requests; NaN once a request's is not known. */
  intendedTokens: number;
  /** A request of the phase came from a group that aims at the cache. */
  aimed: boolean;
}

export function createCacheTally(): CacheTally {
  return { requests: 0, promptTokens: 0, cachedTokens: 0, intendedTokens: 0, aimed: false };
}

/** A request's values as the tally reads them (RecordedValues' fields). */
export interface CacheValues {
  readonly input_tokens: number;
  readonly cached_tokens: number;
  /** The counts are the client's estimate: the server sent no usage. */
  readonly tokensEstimated: boolean;
}

/**
 * Adds one finished request of a group with `aim` (null: a group that aims at nothing, intending 0 cached
 * tokens). `prefixLabel`: its `prefix` label (`p<i>` or `none`; undefined without one).
 */
export function tallyCachedTokens(
  tally: CacheTally,
  aim: CacheAim | null,
  values: CacheValues,
  prefixLabel: string | undefined,
): void {
  if (aim !== null) tally.aimed = true;
  if (values.tokensEstimated || !Number.isFinite(values.cached_tokens) || !(values.input_tokens > 0)) return;
  tally.requests++;
  tally.promptTokens += values.input_tokens;
  tally.cachedTokens += values.cached_tokens;
  if (aim === null) return;
  if (aim.prefixTokens === null) tally.intendedTokens = Number.NaN;
  else if (prefixLabel !== undefined && prefixLabel !== 'none') tally.intendedTokens += aim.prefixTokens;
}

/** The server's hit ratio of a phase: the counters' hits / queries, or a hit-rate gauge's mean (SGLang). */
function serverHitRatio(phase: ServerPhaseSummary): number | undefined {
  const concept = phase.concepts.prefix_cache_hit_ratio;
  if (concept?.kind === 'ratio') return concept.value ?? undefined;
  if (concept?.kind === 'gauge') return concept.mean ?? undefined;
  return undefined;
}

/**
 * The check of one phase, or null when no request of it aimed at the cache. Each ratio is present only
 * when it could be computed; `difference` (server - client) and `agree` only with both.
 */
export function prefixCacheCheck(tally: CacheTally, phase: ServerPhaseSummary): PrefixCacheSummary | null {
  if (!tally.aimed) return null;
  const client = tally.promptTokens > 0 ? tally.cachedTokens / tally.promptTokens : undefined;
  const intended =
    tally.promptTokens > 0 && Number.isFinite(tally.intendedTokens)
      ? tally.intendedTokens / tally.promptTokens
      : undefined;
  const server = serverHitRatio(phase);
  const difference = client !== undefined && server !== undefined ? server - client : undefined;
  return {
    client_requests: tally.requests,
    client_prompt_tokens: tally.promptTokens,
    client_cached_tokens: tally.cachedTokens,
    ...(client === undefined ? {} : { client_cached_ratio: client }),
    ...(server === undefined ? {} : { server_hit_ratio: server }),
    ...(intended === undefined ? {} : { intended_ratio: intended }),
    tolerance: PREFIX_CACHE_TOLERANCE,
    ...(difference === undefined
      ? {}
      : { difference, agree: Math.abs(difference) <= PREFIX_CACHE_TOLERANCE + EDGE_SLACK }),
  };
}

const fixed = (x: number): string => x.toFixed(3);

/** The run warning when a phase's client and server disagree (null when they agree or cannot be compared). */
export function prefixCacheWarning(scenario: string, phaseName: string, phase: ServerPhaseSummary): string | null {
  const check = phase.prefix_cache;
  if (check?.agree !== false) return null;
  const client = check.client_cached_ratio as number;
  const server = check.server_hit_ratio as number;
  const sources = phase.concepts.prefix_cache_hit_ratio?.sources.join(' / ') ?? '';
  return (
    `prefix cache, scenario ${scenario} (${phaseName}): the client saw ${fixed(client)} of its prompt tokens cached ` +
    `(usage cached_tokens: ${check.client_cached_tokens} of ${check.client_prompt_tokens}, ${check.client_requests} requests), ` +
    `the server ${fixed(server)} (${sources}); they differ by ${fixed(Math.abs(server - client))}, more than the tolerance ` +
    `of ${PREFIX_CACHE_TOLERANCE.toFixed(2)}: the server's counters may count other clients or replicas (labels:), ` +
    `or the usage does not come from the engine scraped`
  );
}
