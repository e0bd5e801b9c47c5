/**
 * What a run (or a capacity search) is expected to cost, before it sends anything: per group, planned
 * requests x expected tokens x its model's price (or a per-hour price x the planned time). Deliberately
 * simple, and every assumption is named in `notes`:
 * - requests: a scenario's `requests`, else its load over its duration: an open loop sends rate x duration
 *   (stages integrated); a closed loop sends streams x duration / e2e, with e2e assumed to be
 *   ASSUMED_TTFT_S + output tokens / ASSUMED_DECODE_TPS (the server's speed is what the run measures);
 *   warmup on top, at the same load. A sweep's rate phases are taken at their ceiling (max_concurrency).
 * - tokens: the mean of the prompt length (plus the shared prefix); output: the mean of prompt.output_tokens,
 *   else max_completion_tokens (an upper bound), else ASSUMED_OUTPUT_TOKENS.
 * - a group whose model is resolved only at run time is priced at the dearest model of the price book.
 * A capacity search is bounded from above (capacityPlan): the calibration probe, and max_steps steps, each
 * run up to 1 + HARNESS_RETRIES times (a step the harness spoiled runs again), each for the whole cap
 * (max_step_duration, or its default for the start; its warmup is inside it) at the highest load the
 * search can reach: doubling from its start (capacity.start, raised to the lowest load its SLO can decide
 * at, as the runner raises it) at every step, up to max_load. For an open loop that bounds the arrivals;
 * a closed loop's requests still rest on the assumed e2e, and a start the calibration measures on the
 * e2e assumed for it, both named in `notes`.
 */
import type { LengthDistribution, ResolvedProfile, ResolvedScenario } from '../../profile/resolved-profile.js';
import { parseCapacitySlo } from '../capacity/capacity-slo.js';
import {
  CALIBRATION_MS,
  ceilTo3Digits,
  defaultStepCapMs,
  HARNESS_RETRIES,
  lowestDecidablePerS,
  SEARCH_GROWTH,
} from '../capacity/step-length.js';
import { usdNumber } from '../../util/usd.js';
import { costAtto } from './cost-of.js';
import { stepRampBlocks, stepWarmupMs } from '../../profile/sections/capacity.js';
import type { PriceBook, PricedModel } from './cost-prices.js';

const ASSUMED_TTFT_S = 0.5;
const ASSUMED_DECODE_TPS = 50;
const ASSUMED_OUTPUT_TOKENS = 256;

export interface SpendEstimate {
  /** USD, every priced group. */
  readonly usd: number;
  /** Requests expected in all (warmup included). */
  readonly requests: number;
  /** Assumptions the estimate made, for the user to read. */
  readonly notes: readonly string[];
  /** Models without a price: in no estimate. */
  readonly unpriced: readonly string[];
}

/** The estimate of `inferbench run`. */
export function estimateRunSpend(profile: ResolvedProfile, book: PriceBook): SpendEstimate {
  return estimate(profile.scenarios, profile, book);
}

/** The estimate of `inferbench capacity`: an upper bound of the search's spend (see the file comment). */
export function estimateCapacitySpend(profile: ResolvedProfile, book: PriceBook): SpendEstimate {
  const plans = profile.scenarios.map((scenario) => capacityPlan(profile, scenario));
  const steps = estimate(
    plans.map((plan) => plan.steps),
    profile,
    book,
  );
  const probes = plans.flatMap((plan) => (plan.calibration === null ? [] : [plan.calibration]));
  const calibration = estimate(probes, profile, book);
  const notes = new Set([...steps.notes, ...calibration.notes, ...plans.flatMap((plan) => plan.notes)]);
  return {
    usd: steps.usd + calibration.usd,
    requests: steps.requests + calibration.requests,
    notes: [...notes],
    unpriced: [...new Set([...steps.unpriced, ...calibration.unpriced])],
  };
}

/**
 * One scenario's search at its most: every step run (retries included) for the whole cap at the highest
 * load it can reach, as one scenario of the estimate; and its calibration probe (one stream), if it has one.
 */
function capacityPlan(
  profile: ResolvedProfile,
  scenario: ResolvedScenario,
): { steps: ResolvedScenario; calibration: ResolvedScenario | null; notes: string[] } {
  const spec = profile.capacity;
  const mode = scenario.load.mode;
  const notes: string[] = [];
  const e2eS = ASSUMED_TTFT_S + expectedOutput(scenario, new Set()) / ASSUMED_DECODE_TPS;
  const calibrated = mode === 'rate' ? spec.start === null : spec.maxStepDurationMs === null;
  let start = spec.start ?? (mode === 'rate' ? Math.round(100 / e2eS) / 100 : 1);
  if (mode === 'rate' && spec.start === null)
    notes.push(
      `${scenario.name}: the calibration measures the start; ${start} req/s assumed (set capacity.start for a bound)`,
    );
  // With capacity.mix the thinnest tier gets its weight's share of the total, and must decide on it.
  const weights = spec.mix?.map((member) => member.weight) ?? [1];
  const thinnest = Math.min(...weights) / weights.reduce((a, b) => a + b, 0);
  const perS = (load: number): number => (mode === 'rate' ? load : load / e2eS) * thinnest;
  const untestedMs = stepRampBlocks(stepWarmupMs(spec, scenario.warmupMs), spec.blockMs) * spec.blockMs;
  const capMs = spec.maxStepDurationMs ?? defaultStepCapMs(spec, perS(start), untestedMs, spec.blockMs);
  const objectives = (() => {
    try {
      return parseCapacitySlo(spec.slo);
    } catch {
      return [];
    }
  })();
  const lowestPerS = lowestDecidablePerS(objectives, spec, capMs, untestedMs, spec.blockMs);
  if (Number.isFinite(lowestPerS) && lowestPerS > perS(start))
    start = mode === 'rate' ? ceilTo3Digits(lowestPerS / thinnest) : Math.ceil((lowestPerS * e2eS) / thinnest - 1e-9);
  // The planner rounds each doubling to 3 significant digits: at most 0.5% up.
  const highest = Math.min(spec.maxLoad, start * (SEARCH_GROWTH * 1.005) ** (spec.maxSteps - 1));
  const runs = spec.maxSteps * (1 + HARNESS_RETRIES);
  const load =
    mode === 'rate'
      ? { ...scenario.load, rate: highest, stages: null }
      : { mode: 'concurrency' as const, concurrency: Math.max(1, Math.ceil(highest)), stages: null };
  const steps: ResolvedScenario = {
    ...scenario,
    load,
    durationMs: runs * capMs,
    requests: null,
    warmupMs: 0,
    warmupRequests: 0,
  };
  const calibration: ResolvedScenario | null = calibrated
    ? {
        ...scenario,
        load: { mode: 'concurrency', concurrency: 1, stages: null },
        durationMs: CALIBRATION_MS,
        requests: null,
        warmupMs: 0,
        warmupRequests: 0,
      }
    : null;
  notes.push(
    `${scenario.name}: ${spec.maxSteps} steps, each up to ${1 + HARNESS_RETRIES} times, of ${capMs / 1000} s at up to ${Number(highest.toPrecision(4))} ${mode === 'rate' ? 'req/s' : 'streams'}${calibrated ? ', and a 4 s calibration' : ''}`,
  );
  return { steps, calibration, notes };
}

function estimate(scenarios: readonly ResolvedScenario[], profile: ResolvedProfile, book: PriceBook): SpendEstimate {
  const notes = new Set<string>();
  const unpriced = new Set<string>();
  const dearest = dearestModel(book);
  let atto = 0n;
  let requests = 0;
  for (const scenario of scenarios) {
    const plan = scenarioPlan(scenario, notes);
    for (const group of profile.groups.filter((g) => g.scenario === scenario.name)) {
      requests += plan.requests;
      const priced = group.model === null ? dearest : book.get(group.model);
      if (group.model === null && dearest !== undefined)
        notes.add(`${scenario.name} names no model: priced as the dearest priced model`);
      if (priced === undefined) {
        unpriced.add(group.model ?? `${scenario.name}'s model`);
        continue;
      }
      atto += planCost(priced, plan);
    }
  }
  return { usd: usdNumber(atto), requests: Math.round(requests), notes: [...notes], unpriced: [...unpriced] };
}

interface ScenarioPlan {
  readonly requests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly durationMs: number;
}

function planCost(priced: PricedModel, plan: ScenarioPlan): bigint {
  const tally = {
    inputTokens: Math.round(plan.requests * plan.inputTokens),
    outputTokens: Math.round(plan.requests * plan.outputTokens),
    requests: Math.round(plan.requests),
  };
  return costAtto(priced.price, tally, plan.durationMs * 1000);
}

/** Requests, tokens per request and time of one group of `scenario` (warmup included). */
function scenarioPlan(scenario: ResolvedScenario, notes: Set<string>): ScenarioPlan {
  const prefixes = scenario.prompt.prefixes;
  // inputs_per_request (api: embeddings): that many prompts per request.
  const inputTokens =
    (meanLength(scenario.prompt.inputTokens) +
      scenario.prompt.sharedPrefixTokens +
      (prefixes === undefined ? 0 : prefixes.share * prefixes.tokens)) *
    (scenario.inputsPerRequest ?? 1);
  const outputTokens = expectedOutput(scenario, notes);
  const e2eS = ASSUMED_TTFT_S + outputTokens / ASSUMED_DECODE_TPS;
  const perS = requestsPerS(scenario, e2eS, notes);
  const measuredS = (scenario.durationMs ?? Number.POSITIVE_INFINITY) / 1000;
  const measured = Math.min(scenario.requests ?? Number.POSITIVE_INFINITY, perS * measuredS);
  const warmup = scenario.warmupRequests > 0 ? scenario.warmupRequests : (perS * scenario.warmupMs) / 1000;
  const durationMs = (perS > 0 ? Math.min(measuredS, measured / perS) * 1000 : 0) + scenario.warmupMs;
  return { requests: (Number.isFinite(measured) ? measured : 0) + warmup, inputTokens, outputTokens, durationMs };
}

/** Requests a group sends per second, on average over the measured part. */
function requestsPerS(scenario: ResolvedScenario, e2eS: number, notes: Set<string>): number {
  const load = scenario.load;
  const level = averageLevel(load.stages, load.mode === 'rate' ? load.rate : load.concurrency);
  if (load.mode === 'rate' && scenario.sweep !== undefined) {
    notes.add(`sweep rate phases taken at their ceiling of ${load.maxConcurrency} streams`);
    return load.maxConcurrency / e2eS;
  }
  if (load.mode === 'rate') return level;
  notes.add(`closed loop: ${e2eS.toFixed(1)} s assumed per request`);
  return level / e2eS;
}

/** The mean level of a staged load (linear ramps from the previous target, from 0), else `flat`. */
function averageLevel(stages: ResolvedScenario['load']['stages'], flat: number): number {
  if (stages === null || stages.length === 0) return flat;
  let area = 0;
  let totalMs = 0;
  let previous = 0;
  for (const stage of stages) {
    area += (stage.ramp === 'step' ? stage.target : (previous + stage.target) / 2) * stage.durationMs;
    totalMs += stage.durationMs;
    previous = stage.target;
  }
  return totalMs > 0 ? area / totalMs : flat;
}

function expectedOutput(scenario: ResolvedScenario, notes: Set<string>): number {
  // api: embeddings generates nothing.
  if (scenario.api === 'embeddings') return 0;
  if (scenario.prompt.outputTokens !== null) return meanLength(scenario.prompt.outputTokens);
  const max = scenario.request['max_completion_tokens'];
  if (typeof max === 'number' && max > 0) return max;
  notes.add(`${scenario.name}: no max_completion_tokens, ${ASSUMED_OUTPUT_TOKENS} output tokens assumed`);
  return ASSUMED_OUTPUT_TOKENS;
}

function meanLength(length: LengthDistribution): number {
  if (length.dist === 'fixed') return length.value;
  if (length.dist === 'uniform') return (length.min + length.max) / 2;
  return Math.min(Math.max(length.mean, length.min), length.max);
}

/** The model with the highest price per request-ish token pair (per-hour models rank last). */
function dearestModel(book: PriceBook): PricedModel | undefined {
  let best: PricedModel | undefined;
  let bestAtto = -1n;
  for (const priced of book.values()) {
    const atto = priced.price.kind === 'token' ? priced.price.promptAtto + priced.price.completionAtto : 0n;
    if (atto > bestAtto) {
      best = priced;
      bestAtto = atto;
    }
  }
  return best;
}
