/**
 * The shape of summary.json (schema_version 1), exactly as DESIGN.md promises: the result types every
 * layer reads. Made by the runner at the end of a run, written and read back by `report`, `compare` and
 * `merge`. Times in milliseconds, rates per second; the metric names are metric-registry.ts's. Declared
 * once as zod schemas, the types inferred from them: `report`, `compare` and `merge` check a summary.json
 * whole against runSummarySchema before reading it (report/compare/load-run.ts). Only the CLI's main thread
 * loads this file's values (worker threads import its types only), so zod stays off the hot path.
 */

import { z } from 'zod';
import { ANSWER_CHECK_NAMES } from './check-summary.js';
import { capacitySummarySchema } from './capacity-summary.js';
import { DIALECT_NAMES, DIALECT_ROWS } from './dialect-summary.js';
import { METRIC_NAMES } from './metric-registry.js';
import { harnessHealthSchema, UNMEASURED_HARNESS } from './harness-health.js';
import { compressedHistogram, resultCount } from './result-values.js';
import { groupServerSchema, serverEndpointSchema } from './server-summary.js';

export type { HarnessHealth, WorkerHealth } from './harness-health.js';

export type { MetricName } from './metric-registry.js';

export const SUMMARY_SCHEMA_VERSION = 1;

const metricNameSchema = z.enum(METRIC_NAMES);

export const metricStatsSchema = z.object({
  count: resultCount,
  mean: z.number(),
  min: z.number(),
  max: z.number(),
  /** The low tail, for higher-is-better metrics (fluidity_index, decode_tps); absent in older summaries. */
  p1: z.number().optional(),
  p50: z.number(),
  p90: z.number(),
  p95: z.number(),
  p99: z.number(),
  p999: z.number(),
});
export type MetricStats = z.output<typeof metricStatsSchema>;

export type MetricStat = keyof MetricStats;

// metrics/breakdown-summary.ts and check-summary.ts hold these parts' constants and re-export their types:
// they are imported by worker threads, which must not load zod.

/** The few stats of a breakdown cell's latency, in ms. */
const breakdownLatencySchema = z.object({
  count: resultCount,
  mean: z.number(),
  p50: z.number(),
  p90: z.number(),
  p99: z.number(),
});
export type BreakdownLatency = z.output<typeof breakdownLatencySchema>;

/** One (label, value) of a group (metrics/breakdown-summary.ts). */
const breakdownStatsSchema = z.object({
  /** Requests that ended (ok + failed + throttled). */
  requests: resultCount,
  ok: resultCount,
  /** Ended with an error (429s included: they are not ok). */
  failed: resultCount,
  /** Of the ok requests. */
  ttft_ms: breakdownLatencySchema,
  e2e_ms: breakdownLatencySchema,
  /** Sums over the ok requests. */
  input_tokens: resultCount,
  cached_tokens: resultCount,
  output_tokens: resultCount,
  /** cached_tokens / input_tokens over the ok requests; null without input tokens. */
  cache_hit_ratio: z.number().nullable(),
  /** HdrHistogram compressed base64 of ttft_ms and e2e_ms (integer microseconds), for exact merges. */
  histograms: z.object({ ttft_ms: compressedHistogram.optional(), e2e_ms: compressedHistogram.optional() }),
});
export type BreakdownStats = z.output<typeof breakdownStatsSchema>;

/** label -> value -> stats. */
export type GroupBreakdowns = Record<string, Record<string, BreakdownStats>>;

/** One answer check of a group (metrics/check-summary.ts). */
const checkStatsSchema = z.object({
  passed: resultCount,
  failed: resultCount,
  /** passed / (passed + failed). */
  pass_rate: z.number(),
  /** Up to CHECK_SAMPLES distinct failure messages, in the order they were first seen. */
  samples: z.array(z.string()),
});
export type CheckStats = z.output<typeof checkStatsSchema>;

export const priceSourceSchema = z.enum(['profile', 'catalog']);
export type PriceSource = z.output<typeof priceSourceSchema>;

/**
 * summary.json group `cost`: the group's ok requests priced per token (input x prompt + output x completion,
 * exact decimals), or its deployment per hour over the group's duration_ms. USD.
 */
const groupCostSchema = z.object({
  usd: z.number(),
  /** Where the price came from: the profile's `pricing:` or the target's /public/v1/models. */
  source: priceSourceSchema,
  /** The price used, as decimal strings: USD per token, or USD per hour. */
  pricing: z.union([z.object({ prompt: z.string(), completion: z.string() }), z.object({ per_hour: z.string() })]),
  /** Tokens priced: those of the group's ok requests (as throughput counts them). */
  input_tokens: resultCount,
  output_tokens: resultCount,
  /** usd / output_tokens x 1,000,000; null without output tokens. */
  per_million_output_tokens: z.number().nullable(),
  /** usd / ok requests x 1000; null without an ok request. */
  per_thousand_requests: z.number().nullable(),
});
export type GroupCost = z.output<typeof groupCostSchema>;

const countsByName = z.record(z.string(), resultCount);

const groupRequestsSchema = z
  .object({
    ok: resultCount,
    failed: resultCount,
    dropped: resultCount,
    /** Final outcomes per error class; http_429 counted here too but not in `failed`. */
    errors: countsByName.default({}),
    /** Attempts sent for these requests (= requests sent without retries); absent in older summaries. */
    attempts: resultCount.optional(),
    /** Failed attempts that were retried, per error class: counted even when the retry succeeded. */
    retried: countsByName.default({}),
    /** Up to a few sample messages per error class (secret-free). */
    error_samples: z.record(z.string(), z.array(z.string())).default({}),
  })
  // Summaries from before retries were counted: one attempt per request sent, none retried.
  .transform((requests) => ({
    ...requests,
    attempts: requests.attempts ?? requests.ok + requests.failed + (requests.errors['http_429'] ?? 0),
  }));

/** One metric of a dialect (metrics/dialect-summary.ts), in the tool's own way of averaging and interpolating. */
const dialectStatsSchema = z.object({
  /** The tool's own name for it (e.g. "ICL", "inter_token_latency_s"). */
  name: z.string(),
  /** Values (requests, chunk gaps, or the sum of the weights for a token-weighted GuideLLM metric). */
  count: z.number().min(0),
  mean: z.number(),
  p50: z.number(),
  p90: z.number(),
  p95: z.number(),
  p99: z.number(),
});
export type DialectStats = z.output<typeof dialectStatsSchema>;

/** One tool's reading of a group (aggregate/dialects/): its rows, its throughputs, the source it follows. */
const dialectSummarySchema = z.object({
  /** The tool and the file and version of it whose definitions these are (docs/dialects.md). */
  tool: z.string(),
  source: z.string(),
  /** Requests the tool would count (ok requests with generated text). */
  requests: resultCount,
  output_tokens: resultCount,
  /** The window the tool divides by, seconds. */
  duration_s: z.number(),
  requests_per_s: z.number(),
  output_tokens_per_s: z.number(),
  /**
   * Present (true) only when the run outgrew the exact tables (aggregate/dialects/request-facts.ts): the
   * per-request rows are a uniform sample of `sampled_requests` requests, the pooled chunk gaps one of
   * `sampled_gaps` gaps; the totals above are of every request.
   */
  sampled: z.literal(true).optional(),
  sampled_requests: resultCount.optional(),
  sampled_gaps: resultCount.optional(),
  metrics: z.partialRecord(z.enum(DIALECT_ROWS), dialectStatsSchema),
});
export type DialectSummary = z.output<typeof dialectSummarySchema>;

export const groupSummarySchema = z.object({
  scenario: z.string(),
  model: z.string(),
  /** null when no service_tier was sent. */
  tier: z.string().nullable(),
  /** "scenario/model/tier" ("scenario[.class][.effort]/model/tier" with a mix class or an effort). */
  key: z.string(),
  /** The scenario's mix class the group measured; absent (or null) when the scenario has no mix. */
  class: z.string().nullable().optional(),
  /** The reasoning_effort the group sent (scenario `reasoning_efforts`); absent (or null) when none. */
  reasoning_effort: z.string().nullable().optional(),
  requests: groupRequestsSchema,
  /** failed / (ok + failed); throttled (429) requests are not failures. */
  error_rate: z.number().min(0).max(1),
  throughput: z.object({
    requests_per_s: z.number(),
    output_tokens_per_s: z.number(),
    total_tokens_per_s: z.number(),
    /** Requests per second that met every SLO of the profile (= requests_per_s when no SLO). */
    goodput_per_s: z.number(),
    /**
     * api: embeddings: inputs (prompts embedded) and their input tokens per second, of the ok requests;
     * absent for a group whose requests carry no inputs (an API that generates).
     */
    inputs_per_s: z.number().optional(),
    input_tokens_per_s: z.number().optional(),
  }),
  /** Measured duration of the group (first intended start to last end), ms. */
  duration_ms: z.number(),
  metrics: z.partialRecord(metricNameSchema, metricStatsSchema),
  /**
   * HdrHistogram compressed base64 ("HISTFAAA..."), integer microseconds for *_ms metrics, the raw
   * integer for token counts, and tokens/s x 1000 for decode_tps. Decodable by any HdrHistogram library.
   */
  histograms: z.partialRecord(metricNameSchema, compressedHistogram),
  /** Token accounting: how many requests had counts estimated by the client, mismatches with the server. */
  tokens: z
    .object({ estimated_requests: resultCount, mismatched_requests: resultCount, max_mismatch: z.number() })
    .default({ estimated_requests: 0, mismatched_requests: 0, max_mismatch: 0 }),
  /** Service tier the server reported (service_tier_used) -> requests. */
  tiers_used: countsByName.default({}),
  /** What the group's requests cost (aggregate/cost/cost-of.ts); absent when its model has no price. */
  cost: groupCostSchema.optional(),
  /** Per request label and value (metrics/breakdown-summary.ts); absent when no request had labels. */
  breakdowns: z.record(z.string(), z.record(z.string(), breakdownStatsSchema)).optional(),
  /** Labels that had more than MAX_VALUES_PER_LABEL values -> requests counted under `other`; absent when none. */
  breakdowns_overflow: countsByName.optional(),
  /** Answer checks of the ok requests, per check name (metrics/check-summary.ts); absent when none was checked. */
  checks: z.partialRecord(z.enum(ANSWER_CHECK_NAMES), checkStatsSchema).optional(),
  /** target.server_metrics: the server's concepts over the group's phases (metrics/server-summary.ts); absent without. */
  server: groupServerSchema.optional(),
  /** The group in other tools' definitions (metrics/dialect-summary.ts); absent in runs from before them and in groups merged from several shards. */
  dialects: z.partialRecord(z.enum(DIALECT_NAMES), dialectSummarySchema).optional(),
});
export type GroupSummary = z.output<typeof groupSummarySchema>;

/** summary.json `cost`: the whole run's, USD. */
const runCostSchema = z.object({
  /** The priced groups' cost; a per-hour deployment is paid once per model over the run's wall time. */
  usd: z.number(),
  /** Where the prices came from ('mixed': some models from each). */
  source: z.enum(['profile', 'catalog', 'mixed']),
  /** Models run without a price (their requests are in no cost). */
  unpriced_models: z.array(z.string()),
});
export type RunCost = z.output<typeof runCostSchema>;

const thresholdResultSchema = z.object({
  expression: z.string(),
  /** Group key it was evaluated on, or "*" for the worst over all groups. */
  group: z.string(),
  actual: z.number().nullable(),
  passed: z.boolean(),
});
export type ThresholdResult = z.output<typeof thresholdResultSchema>;

/** One threshold on one group as a sequential test decided it (`stopped.reason` decided, aggregate/decided-stop.ts). */
const decidedThresholdSchema = z.object({
  threshold: z.string(),
  group: z.string(),
  verdict: z.enum(['pass', 'fail']),
  /** When its test decided (seconds from the run's start). */
  at_s: z.number(),
  /** Observations its test counted up to the decision, and how many of them exceeded the limit (failed requests do). */
  requests: resultCount,
  exceeded: resultCount,
  /** The fraction allowed beyond the limit (0.01 for a p99). */
  allowed: z.number(),
  /** >= 1: how much its blocks' exceedances clustered in time (capacity/design-effect.ts). */
  design_effect: z.number(),
});
export type DecidedThreshold = z.output<typeof decidedThresholdSchema>;

/** summary.json `stopped`: what ended a run early, and when (seconds from the run's start). */
const runStoppedSchema = z.discriminatedUnion('reason', [
  z.object({
    reason: z.literal('abort_on_fail'),
    at_s: z.number(),
    /** The threshold's expression, the group it failed on, and the value it had then. */
    threshold: z.string(),
    group: z.string(),
    actual: z.number(),
  }),
  z.object({
    reason: z.literal('max_error_rate'),
    at_s: z.number(),
    group: z.string(),
    /** The scenario's limit and the group's error_rate, ended requests and error classes then. */
    max_error_rate: z.number(),
    error_rate: z.number(),
    requests: resultCount,
    errors: countsByName,
  }),
  z.object({
    reason: z.literal('max_cost'),
    at_s: z.number(),
    /** `--max-cost` and the spend that reached it (USD). */
    max_cost_usd: z.number(),
    spent_usd: z.number(),
  }),
  z.object({
    reason: z.literal('decided'),
    at_s: z.number(),
    /** The sequential tests' error rates and indifference zone (the profile's capacity alpha, beta, indifference). */
    alpha: z.number(),
    beta: z.number(),
    indifference: z.number(),
    /** Every threshold on every group it applies to, as its sequential test decided it. */
    thresholds: z.array(decidedThresholdSchema),
  }),
  z.object({ reason: z.literal('interrupted'), at_s: z.number() }),
]);
export type RunStopped = z.output<typeof runStoppedSchema>;

/** summary.json target.tls: which files verified whom, and whether verification was off. */
const targetTlsSummarySchema = z.object({
  ca: z.string().nullable(),
  cert: z.string().nullable(),
  /** true: the target's certificate was NOT checked (a warning in harness.warnings says so too). */
  insecure_skip_verify: z.boolean(),
});
export type TargetTlsSummary = z.output<typeof targetTlsSummarySchema>;

const shardSchema = z.object({ index: resultCount, count: resultCount });

/**
 * summary.json as `report`, `compare` and `merge` read it: what older versions wrote may lack the parts
 * marked "absent in older summaries"; reading fills them so every reader can rely on them.
 */
export const runSummarySchema = z.object({
  schema_version: z.literal(SUMMARY_SCHEMA_VERSION),
  run_id: z.string(),
  started_at: z.iso.datetime({ offset: true }),
  ended_at: z.iso.datetime({ offset: true }),
  /** false when the run was interrupted or stopped early; true when it stopped because every threshold was decided. */
  complete: z.boolean(),
  inferbench_version: z.string(),
  /** The resolved profile, as run (secret-free: key env var names only). */
  profile: z.object({ name: z.string(), source: z.string().nullable(), resolved: z.unknown() }),
  /** SHA-256 of what was sent (profile workload, models, tiers, seeds): equal hashes = same workload. */
  workload_hash: z.string(),
  /**
   * The same hash with model names left out: equal for runs that sent the same workload to models named
   * differently (what `compare --pair` checks). null in summaries written before the field existed.
   */
  workload_hash_without_models: z.string().nullable().default(null),
  target: z.object({
    base_url: z.string(),
    embedded_emulator: z.boolean().default(false),
    /** The proxy the requests went through (HTTPS_PROXY / HTTP_PROXY), credentials removed; null: direct. Absent in older summaries. */
    proxy: z.string().nullable().optional(),
    /** target.tls as run (file paths only, never their contents); null: Node's defaults. Absent in older summaries. */
    tls: targetTlsSummarySchema.nullable().optional(),
    /**
     * The tokenizer that counted estimated tokens and checked usage: `o200k_base`, or the path of the
     * profile's tokenizer.json (target.tokenizer). Absent in older summaries.
     */
    tokenizer: z.string().optional(),
  }),
  /**
   * `run --shard i/N`: this run sent shard `index` (1-based) of `count` of `profile` (schedule/shard.ts);
   * null for a whole run. Absent in older summaries.
   */
  shard: shardSchema.nullable().optional(),
  /**
   * `load: { mode: sweep }`: group key of each rate phase -> the arrival rate it ran at (measured from the
   * sweep's one-at-a-time and throughput phases). Absent without a sweep.
   */
  sweep_rates: z.record(z.string(), z.number()).optional(),
  /** `run --workers N`: the number of worker threads that sent the load (1 for a run in one thread). Absent in older summaries. */
  workers: resultCount.optional(),
  /** `run --start-at`: the wall-clock time (ISO 8601) the run waited for before its first request; null: none. Absent in older summaries. */
  start_at: z.string().nullable().optional(),
  /**
   * `run --label TEXT`: what the run measured (a commit, a version, a branch), as the user named it; null:
   * none. Absent in older summaries. `trend` names and orders runs by it (docs/trend.md).
   */
  label: z.string().nullable().optional(),
  /** `GITHUB_SHA` when it was set at run time (the commit a GitHub Actions run built); null: not set. Absent in older summaries. */
  commit: z.string().nullable().optional(),
  /** A merged run (`merge`): the run_id of every shard merged, in the order of their start. */
  merged_from: z.array(z.string()).optional(),
  groups: z.array(groupSummarySchema),
  thresholds: z.array(thresholdResultSchema).default([]),
  /**
   * Why a run ended before its end (then `complete` is false): an abort_on_fail threshold, max_error_rate
   * or Ctrl-C; null for a run that ran to its end. Absent in older summaries.
   */
  stopped: runStoppedSchema.nullable().optional(),
  harness: harnessHealthSchema.default(UNMEASURED_HARNESS),
  /**
   * `inferbench capacity`: the search's result (metrics/capacity-summary.ts); `groups` then hold each group at
   * its highest passing step. Absent for runs.
   */
  capacity: capacitySummarySchema.optional(),
  /** What the run cost (a capacity search: every step); absent when no model had a price. */
  cost: runCostSchema.optional(),
  /** target.server_metrics: each endpoint scraped and how its scrapes went; absent when none was scraped. */
  server_metrics: z.array(serverEndpointSchema).optional(),
});
/** schema_version is a number in memory: a reader meets other versions (and says it does not read them). */
export type RunSummary = Omit<z.output<typeof runSummarySchema>, 'schema_version'> & { schema_version: number };

/** One row of timeseries.csv / the in-memory time series: one group, one second. */
export interface TimeSeriesPoint {
  group: string;
  second: number;
  started: number;
  completed: number;
  failed: number;
  throttled: number;
  output_tokens: number;
  in_flight: number;
  ttft_p50_ms: number | null;
  ttft_p99_ms: number | null;
  e2e_p50_ms: number | null;
  ratelimit_remaining_requests: number | null;
  ratelimit_remaining_tokens: number | null;
  /**
   * target.server_metrics: the server's concepts in this second, column name -> value (`server_running`,
   * `server_ttft_p50_ms`, ...; null when the second had none); the same columns on every point of a run,
   * absent when nothing was scraped.
   */
  server?: Readonly<Record<string, number | null>>;
}
