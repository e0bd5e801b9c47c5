/**
 * What `inferbench capacity` found, as written into summary.json (`capacity`), capacity.csv and the
 * HTML report: per group the capacity with its 95% interval, the binding objective, and every step of
 * the search (offered and achieved load, latency percentiles, each objective's exceedance observed and
 * fitted, the decision and its reason). Plain JSON; runner/capacity builds it, report/ writes it.
 */

/** One objective of the capacity SLO: a limit and the share of observations allowed over it. */
export interface CapacityObjectiveSummary {
  key: string;
  /** In the metric's unit (ms), or the allowed error fraction for error_rate. */
  limit: number;
  /** Allowed exceedance fraction (p99 -> 0.01). */
  allowed: number;
}

export interface CapacityStepSummary {
  step: number;
  /** Offered load: req/s (rate) or streams (concurrency). */
  load: number;
  outcome: 'pass' | 'fail' | 'inconclusive';
  reason: string;
  duration_ms: number;
  /** Requests ended per second over the step. */
  achieved_per_s: number | null;
  requests: number;
  failed: number;
  ttft_ms: { p50: number; p99: number } | null;
  itl_ms: { p50: number; p99: number } | null;
  e2e_ms: { p50: number; p99: number } | null;
  /** The server's own queue time (time_info), p50, ms. */
  queue_time_ms_p50: number | null;
  /** Per objective key: the observed exceedance and the monotone fit with its 95% band (fractions). */
  exceedance: Record<string, { observed: number; fitted: number; low: number; high: number } | null>;
  /** Per objective: the sequential test's counts and decision. */
  tests: { key: string; requests: number; exceeded: number; decision: string; description: string }[];
  /** What the step's requests cost, USD (summary.json group `cost`); null or absent when its model has no price. */
  cost_usd?: number | null;
}

export interface CapacityGroupSummary {
  group: string;
  mode: 'rate' | 'concurrency';
  unit: string;
  /** Highest load at which every objective holds (fit crossing); null when even the lowest step failed. */
  capacity: number | null;
  /** 95% interval (block bootstrap); null when the fit could not give one. */
  interval: [number, number] | null;
  /** True when no step failed: the capacity is only a lower bound (the highest load tried). */
  censored: boolean;
  binding: string | null;
  per_objective: Record<string, number | null>;
  last_pass: number | null;
  first_fail: number | null;
  end_reason: string;
  goodput_per_s: number | null;
  /** capacity.min_capacity was set and the capacity (or its absence) is below it. */
  below_min: boolean;
  calibration: { e2e_ms: number; start_load: number } | null;
  /** The untested start every step of this group had (`step_warmup` or its default), ms; null: not known. */
  step_warmup_ms?: number | null;
  /** The longest each of its steps could run undecided (`max_step_duration` or its default for this search), ms. */
  max_step_duration_ms?: number | null;
  /** The lowest load the search would run: its SLO's tests can decide there within the cap; null: not known. */
  lowest_load?: number | null;
  search_ms: number;
  steps: CapacityStepSummary[];
  /**
   * `capacity.mix`: the tiers searched together (this entry's `group` is `<scenario>/mix` and its load the
   * total): each tier's weight and the total load at which it breaks its own SLO (`binding` among them
   * breaks first). Absent for a group searched alone.
   */
  members?: { group: string; weight: number; capacity: number | null; censored: boolean; binding: string | null }[];
  /** What the search cost and what serving costs at the capacity point; absent when the model has no price. */
  cost?: CapacityCost;
}

/**
 * A group's cost in a capacity search: its steps' total (the calibration probe is in the run's `cost`
 * only), and at the capacity point, the highest passing step, the unit costs of serving at that load.
 */
export interface CapacityCost {
  /** USD of every step of the group's search. */
  usd: number;
  /** The highest passing step's load and unit costs (USD); null when no step passed. */
  at_capacity: {
    load: number;
    per_million_output_tokens: number | null;
    per_thousand_requests: number | null;
  } | null;
}

export interface CapacitySummary {
  objectives: CapacityObjectiveSummary[];
  settings: {
    resolution: number;
    max_steps: number;
    step_duration_ms: number;
    /** `max_step_duration` (or `step_duration`) as set; null: the default (each group's `max_step_duration_ms`). */
    max_step_duration_ms?: number | null;
    /** `step_warmup` as set; null: the default (each group's `step_warmup_ms` is the one its steps had). */
    step_warmup_ms?: number | null;
    block_ms: number;
    alpha: number;
    beta: number;
    indifference: number;
    min_capacity: number | null;
    /** Seed of the bootstrap interval. */
    seed: number;
  };
  groups: CapacityGroupSummary[];
}

/** One block of a step as stored in capacity-steps.json (runner/capacity/step-block.ts makes and reads it). */
export interface StoredBlock {
  readonly ok: number;
  readonly failed: number;
  /** Metric -> HdrHistogram compressed base64 (µs), for the latencies that got a value in the block. */
  readonly histograms: Readonly<Record<string, string>>;
}

/** capacity-steps.json: every step's blocks, what `capacity --reevaluate` answers a new SLO from. */
export interface CapacityStepsFile {
  schema_version: 1;
  run_id: string;
  objectives: CapacityObjectiveSummary[];
  settings: CapacitySummary['settings'];
  groups: {
    group: string;
    mode: 'rate' | 'concurrency';
    unit: string;
    /** The untested start of every step (ms); absent in files written before it was recorded. */
    step_warmup_ms?: number;
    /** The cap of its steps (ms); absent in files written before it was recorded. */
    max_step_duration_ms?: number;
    steps: {
      step: number;
      load: number;
      outcome: 'pass' | 'fail' | 'inconclusive';
      reason: string;
      /** Decided by an overload sign no SLO undoes (kept as FAIL on re-evaluation); null: by the tests or undecided. */
      overload: string | null;
      /** The blocks the tests read, ramp-up block first. */
      blocks: StoredBlock[];
      /** Blocks at the start read by no test (the ramp-up and the step's warmup); absent: 1. */
      ramp_blocks?: number;
    }[];
  }[];
}
