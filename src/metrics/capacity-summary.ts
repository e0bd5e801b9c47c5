/**
 * What `inferbench capacity` found, as written into summary.json (`capacity`), capacity.csv and the
 * HTML report: per group the capacity with its 95% interval, the binding objective, and every step of
 * the search (offered and achieved load, latency percentiles, each objective's exceedance observed and
 * fitted, the decision and its reason). Plain JSON; runner/capacity builds it, report/ writes it. Declared
 * once as a zod schema (the types are inferred from it) that `report`, `compare` and `merge` check a
 * summary.json against (report/compare/load-run.ts). Only the CLI's main thread loads it: worker threads
 * import no value from here.
 */
import { z } from 'zod';
import { resultCount } from './result-values.js';
import { serverPhaseSchema } from './server-summary.js';

/**
 * One objective of the capacity SLO: a limit and the share of observations allowed over it. A server
 * objective (`kv_cache_usage.max`) bounds a statistic of each step's server window: its `allowed` is 0.
 */
export const capacityObjectiveSummarySchema = z.object({
  key: z.string(),
  /** In the metric's unit (ms), the allowed error fraction for error_rate, or the server concept's unit. */
  limit: z.number(),
  /** Allowed exceedance fraction (p99 -> 0.01). */
  allowed: z.number(),
});

/** A server objective over one step: the statistic seen (null: none) and whether it held (null: not known). */
export const serverCheckSchema = z.object({
  key: z.string(),
  value: z.number().nullable(),
  limit: z.number(),
  held: z.boolean().nullable(),
});
export type CapacityObjectiveSummary = z.output<typeof capacityObjectiveSummarySchema>;

const outcomeSchema = z.enum(['pass', 'fail', 'inconclusive']);
const p50p99Schema = z.object({ p50: z.number(), p99: z.number() }).nullable();

export const capacityStepSummarySchema = z.object({
  step: resultCount,
  /** Offered load: req/s (rate) or streams (concurrency). */
  load: z.number(),
  outcome: outcomeSchema,
  reason: z.string(),
  duration_ms: z.number(),
  /** Requests ended per second over the step. */
  achieved_per_s: z.number().nullable(),
  requests: resultCount,
  failed: resultCount,
  ttft_ms: p50p99Schema,
  itl_ms: p50p99Schema,
  e2e_ms: p50p99Schema,
  /** The server's own queue time (time_info), p50, ms. */
  queue_time_ms_p50: z.number().nullable(),
  /** Per objective key: the observed exceedance and the monotone fit with its 95% band (fractions). */
  exceedance: z.record(
    z.string(),
    z.object({ observed: z.number(), fitted: z.number(), low: z.number(), high: z.number() }).nullable(),
  ),
  /** Per objective: the sequential test's counts and decision. */
  tests: z.array(
    z.object({
      key: z.string(),
      requests: resultCount,
      exceeded: resultCount,
      decision: z.string(),
      description: z.string(),
    }),
  ),
  /** What the step's requests cost, USD (summary.json group `cost`); null or absent when its model has no price. */
  cost_usd: z.number().nullable().optional(),
  /** target.server_metrics: the server over the step's measured window (as a group's `server.measured`); absent: not scraped. */
  server: serverPhaseSchema.nullable().optional(),
  /** The SLO's server objectives over that window; absent without any. */
  server_checks: z.array(serverCheckSchema).optional(),
});
export type CapacityStepSummary = z.output<typeof capacityStepSummarySchema>;

/**
 * A group's cost in a capacity search: its steps' total (the calibration probe is in the run's `cost`
 * only), and at the capacity point, the highest passing step, the unit costs of serving at that load.
 */
export const capacityCostSchema = z.object({
  /** USD of every step of the group's search. */
  usd: z.number(),
  /** The highest passing step's load and unit costs (USD); null when no step passed. */
  at_capacity: z
    .object({
      load: z.number(),
      per_million_output_tokens: z.number().nullable(),
      per_thousand_requests: z.number().nullable(),
    })
    .nullable(),
});
export type CapacityCost = z.output<typeof capacityCostSchema>;

export const capacityGroupSummarySchema = z.object({
  group: z.string(),
  mode: z.enum(['rate', 'concurrency']),
  unit: z.string(),
  /** Highest load at which every objective holds (fit crossing); null when even the lowest step failed. */
  capacity: z.number().nullable(),
  /** 95% interval (block bootstrap); null when the fit could not give one. */
  interval: z.tuple([z.number(), z.number()]).nullable(),
  /** True when no step failed: the capacity is only a lower bound (the highest load tried). */
  censored: z.boolean(),
  binding: z.string().nullable(),
  per_objective: z.record(z.string(), z.number().nullable()),
  last_pass: z.number().nullable(),
  first_fail: z.number().nullable(),
  /**
   * What the server showed from the last passing step to the first failing one, e.g. "waiting 0 -> 37,
   * KV cache 61% -> 99%" (aggregate/capacity/server-knee.ts); null: a step has no server window; absent
   * when the search scraped nothing.
   */
  server_at_knee: z.string().nullable().optional(),
  end_reason: z.string(),
  goodput_per_s: z.number().nullable(),
  /** capacity.min_capacity was set and the capacity (or its absence) is below it. */
  below_min: z.boolean(),
  calibration: z.object({ e2e_ms: z.number(), start_load: z.number() }).nullable(),
  /** The untested start every step of this group had (`step_warmup` or its default), ms; null: not known. */
  step_warmup_ms: z.number().nullable().optional(),
  /** The longest each of its steps could run undecided (`max_step_duration` or its default for this search), ms. */
  max_step_duration_ms: z.number().nullable().optional(),
  /** The lowest load the search would run: its SLO's tests can decide there within the cap; null: not known. */
  lowest_load: z.number().nullable().optional(),
  search_ms: z.number(),
  steps: z.array(capacityStepSummarySchema),
  /**
   * `capacity.mix`: the tiers searched together (this entry's `group` is `<scenario>/mix` and its load the
   * total): each tier's weight and the total load at which it breaks its own SLO (`binding` among them
   * breaks first). Absent for a group searched alone.
   */
  members: z
    .array(
      z.object({
        group: z.string(),
        weight: z.number(),
        capacity: z.number().nullable(),
        censored: z.boolean(),
        binding: z.string().nullable(),
      }),
    )
    .optional(),
  /** What the search cost and what serving costs at the capacity point; absent when the model has no price. */
  cost: capacityCostSchema.optional(),
});
export type CapacityGroupSummary = z.output<typeof capacityGroupSummarySchema>;

export const capacitySettingsSchema = z.object({
  resolution: z.number(),
  max_steps: resultCount,
  step_duration_ms: z.number(),
  /** `max_step_duration` (or `step_duration`) as set; null: the default (each group's `max_step_duration_ms`). */
  max_step_duration_ms: z.number().nullable().optional(),
  /** `step_warmup` as set; null: the default (each group's `step_warmup_ms` is the one its steps had). */
  step_warmup_ms: z.number().nullable().optional(),
  block_ms: z.number(),
  alpha: z.number(),
  beta: z.number(),
  indifference: z.number(),
  min_capacity: z.number().nullable(),
  /** Seed of the bootstrap interval. */
  seed: z.number(),
});

export const capacitySummarySchema = z.object({
  objectives: z.array(capacityObjectiveSummarySchema),
  settings: capacitySettingsSchema,
  groups: z.array(capacityGroupSummarySchema),
});
export type CapacitySummary = z.output<typeof capacitySummarySchema>;

/** One block of a step as stored in capacity-steps.json (runner/capacity/step-block.ts makes and reads it). */
export interface StoredBlock {
  readonly ok: number;
  readonly failed: number;
  /** Metric -> HdrHistogram compressed base64 (µs), for the latencies that got a value in the block. */
  readonly histograms: Readonly<Record<string, string>>;
}

const storedBlockSchema = z.object({
  ok: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  histograms: z.record(z.string(), z.string()),
});

/**
 * capacity-steps.json: every step's blocks, what `capacity --reevaluate` answers a new SLO from. Checked
 * whole when read back, as summary.json is: a wrong value is an error naming the file and its place.
 */
export const capacityStepsFileSchema = z.object({
  schema_version: z.literal(1),
  run_id: z.string(),
  objectives: z.array(capacityObjectiveSummarySchema),
  settings: capacitySettingsSchema,
  groups: z.array(
    z.object({
      group: z.string(),
      mode: z.enum(['rate', 'concurrency']),
      unit: z.string(),
      /** The untested start of every step (ms); absent in files written before it was recorded. */
      step_warmup_ms: z.number().nonnegative().optional(),
      /** The cap of its steps (ms); absent in files written before it was recorded. */
      max_step_duration_ms: z.number().nonnegative().optional(),
      steps: z.array(
        z.object({
          step: z.number().int().positive(),
          load: z.number().nonnegative(),
          outcome: z.enum(['pass', 'fail', 'inconclusive']),
          reason: z.string(),
          /** Decided by an overload sign no SLO undoes (kept as FAIL on re-evaluation); null: by the tests or undecided. */
          overload: z.string().nullable(),
          /** The blocks the tests read, ramp-up block first. */
          blocks: z.array(storedBlockSchema),
          /** Blocks at the start read by no test (the ramp-up and the step's warmup); absent: 1. */
          ramp_blocks: z.number().int().nonnegative().optional(),
          /** The server over the step's window, for server objectives; absent: not scraped. */
          server: serverPhaseSchema.nullable().optional(),
        }),
      ),
    }),
  ),
});

export type CapacityStepsFile = z.output<typeof capacityStepsFileSchema>;
