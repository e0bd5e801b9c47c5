/**
 * Whole capacity searches simulated the way the runner runs them (planner, one sequential test per step
 * fed 1-second blocks and floored by the design effect of the steps before it, a step ends at its first
 * decision, an undecided step at its time limit ends the search as INCONCLUSIVE and is left out of the fit), on exceedance curves whose crossing is known, and
 * the coverage of the fitted interval over many seeds. Curves: a smooth logistic one, a near-step one
 * (a server of known capacity: nothing waits below it, a backlog builds above it) and one with requests
 * clustered in time (beta-binomial blocks).
 */
import {
  estimateCapacity,
  type CapacityEstimate,
  type IntervalMethod,
  type StepBlocks,
} from '../../../../src/aggregate/capacity/capacity-fit.js';
import { CapacitySearch } from '../../../../src/aggregate/capacity/capacity-search.js';
import type { CapacityObjective } from '../../../../src/aggregate/capacity/capacity-slo.js';
import { ExceedanceSprt } from '../../../../src/aggregate/capacity/exceedance-sprt.js';
import { pooledDesignEffect } from '../../../../src/aggregate/capacity/design-effect.js';
import {
  ceilTo3Digits,
  defaultStepCapMs,
  lowestDecidablePerS,
  testedSeconds,
} from '../../../../src/aggregate/capacity/step-length.js';
import { createRng, type Rng } from '../../../../src/util/rng.js';
import { block } from './simulate.js';

export interface Curve {
  readonly name: string;
  readonly objective: CapacityObjective;
  /** The load at which the exceedance crosses objective.allowed. */
  readonly truth: number;
  readonly exceedanceAt: (load: number) => number;
  /** Intra-block correlation of exceedances (0: independent requests). */
  readonly rho: number;
  /** First load of the search. */
  readonly start: number;
}

const logit = (p: number): number => Math.log(p / (1 - p));
const logistic = (x: number): number => 1 / (1 + Math.exp(-x));

/** Logistic in load around `truth`, `allowed` there; `scale` in load units per unit of logit. */
export function logisticCurve(
  name: string,
  objective: CapacityObjective,
  truth: number,
  scale: number,
  rho = 0,
  start = 10,
): Curve {
  return {
    name,
    objective,
    truth,
    rho,
    start,
    exceedanceAt: (load) => logistic(logit(objective.allowed) + (load - truth) / scale),
  };
}

const P99: CapacityObjective = { key: 'ttft_ms.p99', metric: 'ttft_ms', allowed: 0.01, limit: 500 };
const P90: CapacityObjective = { key: 'ttft_ms.p90', metric: 'ttft_ms', allowed: 0.1, limit: 75 };

/** The curves the coverage is checked on. */
export const CURVES = {
  /** p99, exceedance 0.5% at 46.5 and 1.5% at 52: a gently saturating server. */
  smooth: logisticCurve('smooth p99', P99, 50, 5),
  /** p90, from 1% to 90% within +-2.5% of 40 req/s: slots x service time, a backlog above it. */
  steep: logisticCurve('steep p90', P90, 40, 0.25),
  /** The smooth curve with exceedances clustered in time (design effect about 1 + 0.03 (n - 1)). */
  clustered: logisticCurve('clustered p99', P99, 50, 5, 0.03),
} satisfies Record<string, Curve>;

export interface SimulatedSearch {
  readonly steps: StepBlocks[];
  readonly seconds: number;
  /** Every step's load and outcome, in order, and how the planner ended. */
  readonly history: readonly { load: number; outcome: string }[];
  readonly endReason: string | null;
  readonly lastPass: number | null;
  readonly firstFail: number | null;
}

export interface SearchSettings {
  /** Blocks a step runs undecided before it is INCONCLUSIVE (step_duration / block); default 60. */
  readonly maxBlocks?: number;
  /** Give each step's test the design effect pooled over the earlier steps as its floor, as the runner does; default true. */
  readonly sprtFloor?: boolean;
  /**
   * The runner's step-length rules (aggregate/capacity/step-length.ts): steps capped at `capMs` (default:
   * sized for a p99 at half the start), the lowest load (and the start) raised to where the objective can
   * decide within the cap, and an undecided step a ceiling the search goes on under. Without them (the
   * default): `maxBlocks` tested blocks a step, and an undecided step ends the search.
   */
  readonly stepRules?: boolean;
  /** With stepRules: a stated cap (max_step_duration), ms. */
  readonly capMs?: number;
  /** Untested blocks at the start of every step (the first block and the step warmup); default 0. */
  readonly untestedBlocks?: number;
  /** capacity.resolution; default 0.05. */
  readonly resolution?: number;
}

const TESTS = { alpha: 0.05, beta: 0.05, indifference: 0.5 };

/** A search's limits under the step-length rules: tested blocks per step, its lowest load and start. */
export function stepLimits(curve: Curve, settings: SearchSettings) {
  const untestedMs = (settings.untestedBlocks ?? 0) * 1000;
  const capMs = settings.capMs ?? defaultStepCapMs(TESTS, curve.start, untestedMs, 1000);
  const lowest = ceilTo3Digits(lowestDecidablePerS([curve.objective], TESTS, capMs, untestedMs, 1000));
  return {
    capMs,
    testedBlocks: Math.floor(testedSeconds(capMs, untestedMs, 1000)),
    lowest,
    start: Math.max(curve.start, lowest),
  };
}

/** One search: each step 1-second blocks of round(load) requests until its test decides (at most `maxBlocks`). */
export function simulateSearch(rng: Rng, curve: Curve, settings: SearchSettings = {}): SimulatedSearch {
  const { sprtFloor = true, stepRules = false } = settings;
  const limits = stepRules ? stepLimits(curve, settings) : null;
  const maxBlocks = limits?.testedBlocks ?? settings.maxBlocks ?? 60;
  const search = new CapacitySearch({
    start: limits?.start ?? curve.start,
    integer: false,
    resolution: settings.resolution ?? 0.05,
    maxSteps: 12,
    min: Math.max(0.05, limits?.lowest ?? 0),
    max: 4096,
  });
  const steps: StepBlocks[] = [];
  let seconds = 0;
  for (let load = search.next(); load !== null; load = search.next()) {
    const minDesignEffect = sprtFloor
      ? pooledDesignEffect(steps.map((step) => step.blocks[curve.objective.key] ?? []))
      : 1;
    const test = new ExceedanceSprt({ allowed: curve.objective.allowed, minDesignEffect });
    const blocks: { exceeded: number; total: number }[] = [];
    while (test.decision === 'undecided' && blocks.length < maxBlocks) {
      const next = block(rng, Math.max(1, Math.round(load)), curve.exceedanceAt(load), curve.rho);
      blocks.push(next);
      test.addBlock(next.exceeded, next.total);
    }
    seconds += blocks.length + 1 + (settings.untestedBlocks ?? 0);
    const undecided = stepRules ? 'undecided' : 'inconclusive';
    const outcome = test.decision === 'undecided' ? undecided : test.decision;
    search.record(load, outcome);
    if (test.decision !== 'undecided') steps.push({ load, blocks: { [curve.objective.key]: blocks } });
  }
  return {
    steps,
    seconds,
    history: search.history,
    endReason: search.endReason,
    lastPass: search.lastPass,
    firstFail: search.firstFail,
  };
}

export interface Coverage {
  readonly runs: number;
  /** Share of searches whose interval holds the truth. */
  readonly covered: number;
  /** Share whose capacity is within 10% of the truth. */
  readonly within: number;
  /** Median of (high - low) / truth. */
  readonly medianWidth: number;
  /** Median simulated seconds of a search. */
  readonly medianSeconds: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Seeded searches on `curve`, each fitted with `method`. */
export function searchCoverage(
  curve: Curve,
  runs: number,
  seed: number,
  options: { method?: IntervalMethod; resamples?: number } & SearchSettings = {},
): Coverage {
  let covered = 0;
  let within = 0;
  const widths: number[] = [];
  const seconds: number[] = [];
  for (let i = 0; i < runs; i++) {
    const search = simulateSearch(createRng(seed + i), curve, options);
    const estimate: CapacityEstimate = estimateCapacity(search.steps, [curve.objective], {
      seed: i,
      resamples: options.resamples ?? 400,
      ...(options.method === undefined ? {} : { method: options.method }),
    });
    const [low, high] = estimate.interval ?? [Number.NaN, Number.NaN];
    if (low <= curve.truth && curve.truth <= high) covered++;
    if (estimate.capacity !== null && Math.abs(estimate.capacity / curve.truth - 1) <= 0.1) within++;
    widths.push((high - low) / curve.truth);
    seconds.push(search.seconds);
  }
  return {
    runs,
    covered: covered / runs,
    within: within / runs,
    medianWidth: median(widths),
    medianSeconds: median(seconds),
  };
}
