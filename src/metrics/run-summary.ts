/**
 * The shape of summary.json (schema_version 1), exactly as DESIGN.md promises: the result types every
 * layer reads. Made by the runner at the end of a run, written and read back by `report`, `compare` and
 * `merge`. Times in milliseconds, rates per second; the metric names are metric-registry.ts's.
 */

import type { MetricName } from './metric-registry.js';
import type { CapacitySummary } from './capacity-summary.js';
import type { GroupBreakdowns } from './breakdown-summary.js';
import type { GroupChecks } from './check-summary.js';

export type { MetricName } from './metric-registry.js';

export const SUMMARY_SCHEMA_VERSION = 1;

export interface MetricStats {
  count: number;
  mean: number;
  min: number;
  max: number;
  /** The low tail, for higher-is-better metrics (fluidity_index, decode_tps); absent in older summaries. */
  p1?: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
}

export type MetricStat = keyof MetricStats;

export interface GroupSummary {
  scenario: string;
  model: string;
  /** null when no service_tier was sent. */
  tier: string | null;
  /** "scenario/model/tier" ("scenario[.class][.effort]/model/tier" with a mix class or an effort). */
  key: string;
  /** The scenario's mix class the group measured; absent (or null) when the scenario has no mix. */
  class?: string | null;
  /** The reasoning_effort the group sent (scenario `reasoning_efforts`); absent (or null) when none. */
  reasoning_effort?: string | null;
  requests: {
    ok: number;
    failed: number;
    dropped: number;
    /** Final outcomes per error class; http_429 counted here too but not in `failed`. */
    errors: Record<string, number>;
    /** Attempts sent for these requests (= requests sent without retries). */
    attempts: number;
    /** Failed attempts that were retried, per error class: counted even when the retry succeeded. */
    retried: Record<string, number>;
    /** Up to a few sample messages per error class (secret-free). */
    error_samples: Record<string, string[]>;
  };
  /** failed / (ok + failed); throttled (429) requests are not failures. */
  error_rate: number;
  throughput: {
    requests_per_s: number;
    output_tokens_per_s: number;
    total_tokens_per_s: number;
    /** Requests per second that met every SLO of the profile (= requests_per_s when no SLO). */
    goodput_per_s: number;
  };
  /** Measured duration of the group (first intended start to last end), ms. */
  duration_ms: number;
  metrics: Partial<Record<MetricName, MetricStats>>;
  /**
   * HdrHistogram compressed base64 ("HISTFAAA..."), integer microseconds for *_ms metrics, the raw
   * integer for token counts, and tokens/s x 1000 for decode_tps. Decodable by any HdrHistogram library.
   */
  histograms: Partial<Record<MetricName, string>>;
  /** Token accounting: how many requests had counts estimated by the client, mismatches with the server. */
  tokens: { estimated_requests: number; mismatched_requests: number; max_mismatch: number };
  /** Service tier the server reported (service_tier_used) -> requests. */
  tiers_used: Record<string, number>;
  /** What the group's requests cost (aggregate/cost-of.ts); absent when its model has no price. */
  cost?: GroupCost;
  /** Per request label and value (metrics/breakdown-summary.ts); absent when no request had labels. */
  breakdowns?: GroupBreakdowns;
  /** Labels that had more than MAX_VALUES_PER_LABEL values -> requests counted under `other`; absent when none. */
  breakdowns_overflow?: Record<string, number>;
  /** Answer checks of the ok requests, per check name (metrics/check-summary.ts); absent when none was checked. */
  checks?: GroupChecks;
}

/**
 * summary.json group `cost`: the group's ok requests priced per token (input x prompt + output x completion,
 * exact decimals), or its deployment per hour over the group's duration_ms. USD.
 */
export interface GroupCost {
  usd: number;
  /** Where the price came from: the profile's `pricing:` or the target's /public/v1/models. */
  source: PriceSource;
  /** The price used, as decimal strings: USD per token, or USD per hour. */
  pricing: { prompt: string; completion: string } | { per_hour: string };
  /** Tokens priced: those of the group's ok requests (as throughput counts them). */
  input_tokens: number;
  output_tokens: number;
  /** usd / output_tokens x 1,000,000; null without output tokens. */
  per_million_output_tokens: number | null;
  /** usd / ok requests x 1000; null without an ok request. */
  per_thousand_requests: number | null;
}

export type PriceSource = 'profile' | 'catalog';

/** summary.json `cost`: the whole run's, USD. */
export interface RunCost {
  /** The priced groups' cost; a per-hour deployment is paid once per model over the run's wall time. */
  usd: number;
  /** Where the prices came from ('mixed': some models from each). */
  source: PriceSource | 'mixed';
  /** Models run without a price (their requests are in no cost). */
  unpriced_models: string[];
}

export interface ThresholdResult {
  expression: string;
  /** Group key it was evaluated on, or "*" for the worst over all groups. */
  group: string;
  actual: number | null;
  passed: boolean;
}

/** summary.json `stopped`: what ended a run early, and when (seconds from the run's start). */
export type RunStopped =
  | {
      reason: 'abort_on_fail';
      at_s: number;
      /** The threshold's expression, the group it failed on, and the value it had then. */
      threshold: string;
      group: string;
      actual: number;
    }
  | {
      reason: 'max_error_rate';
      at_s: number;
      group: string;
      /** The scenario's limit and the group's error_rate, ended requests and error classes then. */
      max_error_rate: number;
      error_rate: number;
      requests: number;
      errors: Record<string, number>;
    }
  | {
      reason: 'max_cost';
      at_s: number;
      /** `--max-cost` and the spend that reached it (USD). */
      max_cost_usd: number;
      spent_usd: number;
    }
  | { reason: 'interrupted'; at_s: number };

export interface HarnessHealth {
  event_loop_delay_ms: { p50: number; p99: number; max: number };
  /** Process CPU use over the run, 1.0 = one core fully busy. */
  cpu_utilization: number;
  schedule_lag_ms: { p50: number; p99: number; max: number };
  /** Human warnings when the harness itself may have distorted the numbers. */
  warnings: string[];
  /** True when the client was likely the bottleneck (event-loop delay or schedule lag too high). */
  client_bottleneck: boolean;
  /**
   * `run --workers N`: each worker thread's own health (the figures above are the worst of them, its
   * warnings named by worker). Absent for a run in one thread.
   */
  workers?: WorkerHealth[];
}

/** One worker thread of `run --workers N` in summary.json `harness.workers`. */
export interface WorkerHealth {
  /** 1-based, of `workers`. */
  worker: number;
  /** The share it sent, as a shard of the whole run (rates, counts and seeds split like `--shard`). */
  share: { index: number; count: number };
  /** False when it was interrupted or ended before its share was done (then harness.warnings says why). */
  complete: boolean;
  /** Its CPU use is its thread's event-loop utilisation (busy time / wall time), not the process's. */
  health: HarnessHealth;
}

export interface RunSummary {
  schema_version: number;
  run_id: string;
  started_at: string;
  ended_at: string;
  /** false when the run was interrupted or stopped early. */
  complete: boolean;
  inferbench_version: string;
  /** The resolved profile, as run (secret-free: key env var names only). */
  profile: { name: string; source: string | null; resolved: unknown };
  /** SHA-256 of what was sent (profile workload, models, tiers, seeds): equal hashes = same workload. */
  workload_hash: string;
  /**
   * The same hash with model names left out: equal for runs that sent the same workload to models named
   * differently (what `compare --pair` checks). null in summaries written before the field existed.
   */
  workload_hash_without_models: string | null;
  target: {
    base_url: string;
    embedded_emulator: boolean;
    /** The proxy the requests went through (HTTPS_PROXY / HTTP_PROXY), credentials removed; null: direct. Absent in older summaries. */
    proxy?: string | null;
    /** target.tls as run (file paths only, never their contents); null: Node's defaults. Absent in older summaries. */
    tls?: TargetTlsSummary | null;
    /**
     * The tokenizer that counted estimated tokens and checked usage: `o200k_base`, or the path of the
     * profile's tokenizer.json (target.tokenizer). Absent in older summaries.
     */
    tokenizer?: string;
  };
  /**
   * `run --shard i/N`: this run sent shard `index` (1-based) of `count` of `profile` (schedule/shard.ts);
   * null for a whole run. Absent in older summaries.
   */
  shard?: { index: number; count: number } | null;
  /**
   * `load: { mode: sweep }`: group key of each rate phase -> the arrival rate it ran at (measured from the
   * sweep's one-at-a-time and throughput phases). Absent without a sweep.
   */
  sweep_rates?: Record<string, number>;
  /** `run --workers N`: the number of worker threads that sent the load (1 for a run in one thread). Absent in older summaries. */
  workers?: number;
  /** `run --start-at`: the wall-clock time (ISO 8601) the run waited for before its first request; null: none. Absent in older summaries. */
  start_at?: string | null;
  groups: GroupSummary[];
  thresholds: ThresholdResult[];
  /**
   * Why a run ended before its end (then `complete` is false): an abort_on_fail threshold, max_error_rate
   * or Ctrl-C; null for a run that ran to its end. Absent in older summaries.
   */
  stopped?: RunStopped | null;
  harness: HarnessHealth;
  /**
   * `inferbench capacity`: the search's result (metrics/capacity-summary.ts); `groups` then hold each group at
   * its highest passing step. Absent for runs.
   */
  capacity?: CapacitySummary;
  /** What the run cost (a capacity search: every step); absent when no model had a price. */
  cost?: RunCost;
}

/** summary.json target.tls: which files verified whom, and whether verification was off. */
export interface TargetTlsSummary {
  ca: string | null;
  cert: string | null;
  /** true: the target's certificate was NOT checked (a warning in harness.warnings says so too). */
  insecure_skip_verify: boolean;
}

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
}
