/**
 * summary.json's server side (target.server_metrics): per group and phase (`groups[].server`) the target's
 * own concepts over the phase's window, each with the raw series it came from, and the energy per output
 * token; at the top (`server_metrics`) each endpoint scraped and how its scrapes went. Written by the runner
 * (aggregate/server-metrics/server-summary.ts reduces the scrapes), read back with the rest of the file.
 * A statistic is null when the window had nothing to compute it from (JSON has no NaN).
 */
import { z } from 'zod';
import { resultCount } from './result-values.js';

const stat = z.number().nullable();
/** The raw series names the value came from (e.g. `vllm:num_requests_waiting`). */
const sources = z.array(z.string());
/** The endpoint's URL (credentials hidden) that gave the value. */
const endpoint = z.string();

/** One concept over a window, reduced as its kind says (docs/server-metrics.md). */
export const serverConceptSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('gauge'),
    last: stat,
    min: stat,
    max: stat,
    mean: stat,
    /** Over the phase's per-second values (timeseries.csv's, each second's last); absent in older results. */
    p99: stat.optional(),
    sources,
    endpoint,
  }),
  z.object({
    kind: z.literal('counter'),
    /** The increase over the window, and per second of the scrapes' own times. */
    delta: stat,
    per_s: stat,
    /** The max and p99 of the phase's per-second rates (timeseries.csv's); absent in older results. */
    max_per_s: stat.optional(),
    p99_per_s: stat.optional(),
    sources,
    endpoint,
  }),
  z.object({ kind: z.literal('ratio'), value: stat, hits: stat, queries: stat, sources, endpoint }),
  z.object({
    kind: z.literal('histogram'),
    /** Observations in the window; mean and quantiles in ms. */
    count: stat,
    mean: stat,
    p50: stat,
    p90: stat,
    p99: stat,
    sources,
    endpoint,
  }),
]);
export type ServerConceptSummary = z.output<typeof serverConceptSchema>;

/**
 * Prefix caching confirmed (aggregate/server-metrics/prefix-cache-check.ts), for a scenario that aims at the
 * prompt cache: the client's cached share of prompt tokens beside the server's hit ratio over the same
 * phase, and the workload's intended share. A ratio that could not be computed is absent, never 0.
 */
export const prefixCacheSchema = z.object({
  /**
   * What both sides counted over, seconds from the run's start: the two scrapes the server's counters were
   * read between (the client's requests processed in between, warmup ones included), else the phase.
   */
  from_s: z.number(),
  to_s: z.number(),
  /** The scenario's requests in that window whose usage said prompt_tokens_details.cached_tokens, and their sums. */
  client_requests: resultCount,
  client_prompt_tokens: z.number(),
  client_cached_tokens: z.number(),
  /** client_cached_tokens / client_prompt_tokens. */
  client_cached_ratio: z.number().optional(),
  /** The server's prefix_cache_hit_ratio over the window (hits / queries; SGLang: its hit-rate gauge's mean). */
  server_hit_ratio: z.number().optional(),
  /** prompt.prefixes: the prefix tokens of the requests that carried one / client_prompt_tokens. */
  intended_ratio: z.number().optional(),
  /** The largest |server - client| that agrees. */
  tolerance: z.number(),
  /** server_hit_ratio - client_cached_ratio, with both. */
  difference: z.number().optional(),
  /** |difference| <= tolerance, with both. */
  agree: z.boolean().optional(),
});
export type PrefixCacheSummary = z.output<typeof prefixCacheSchema>;

/** The server over one phase's window of a scenario (shared by the scenario's groups: they run together). */
export const serverPhaseSchema = z.object({
  /** The window, seconds from the run's start: the phase's first intended start to its last end. */
  from_s: z.number(),
  to_s: z.number(),
  /** Successful and failed scrapes inside the window, over every endpoint. */
  scrapes: resultCount,
  failures: resultCount,
  /** Output tokens of every group of the scenario that ended in this phase (the J/token denominator). */
  output_tokens: z.number(),
  /** Concept -> its value; a concept no endpoint exposed is absent, never zero. */
  concepts: z.record(z.string(), serverConceptSchema),
  /**
   * The `metrics:` extras: raw name (a histogram's family name) -> its value, reduced as its TYPE says, in
   * the series' own unit (a histogram's mean and quantiles too: seconds for `_seconds`, never scaled to ms).
   * Only when some endpoint has `metrics:` (empty: none of them was exposed); absent in older results.
   */
  extras: z.record(z.string(), serverConceptSchema).optional(),
  /**
   * Joules over the window: energy_j's increase, else power_w's mean x the window; null without either. The
   * deployment's, whatever share of its load this run sent. Absent in results written before it was added.
   */
  energy_j: stat.optional(),
  /**
   * energy_j / output_tokens; null without energy or tokens, and in a shard of several (`run --shard i/N`,
   * N > 1): its tokens are a share of what the server served in the window; `merge` divides by all of them.
   */
  energy_per_output_token_j: stat,
  /** Only for a scenario whose workload aims at the prompt cache. */
  prefix_cache: prefixCacheSchema.optional(),
});
export type ServerPhaseSummary = z.output<typeof serverPhaseSchema>;

/** `groups[].server`: the measured part, and the warmup when the scenario had one. */
export const groupServerSchema = z.object({
  measured: serverPhaseSchema.nullable(),
  warmup: serverPhaseSchema.optional(),
});
export type GroupServerSummary = z.output<typeof groupServerSchema>;

/** `server_metrics[]`: one endpoint and how its scrapes went (never a key). */
export const serverEndpointSchema = z.object({
  url: z.string(),
  /** The profile's preset (`auto` or an engine). */
  preset: z.string(),
  /** The engine whose names were read (what `auto` recognised); null: none recognised. */
  engine: z.string().nullable(),
  interval_ms: z.number(),
  attempts: resultCount,
  scrapes_ok: resultCount,
  /** Ticks skipped because the previous scrape was still going. */
  skipped: resultCount,
  failures: resultCount,
  failures_by_kind: z.record(z.string(), resultCount),
  /** The last failure: its kind, message (secret-free) and when (seconds from the run's start). */
  last_error: z.object({ kind: z.string(), message: z.string(), at_s: z.number() }).nullable(),
  /**
   * The longest successful scrape (its GET's start to the body read), ms; null: none succeeded. What a
   * skipped tick's warning quotes. Absent in results written before it was added.
   */
  slowest_ms: z.number().nullable().optional(),
});
export type ServerEndpointSummary = z.output<typeof serverEndpointSchema>;
