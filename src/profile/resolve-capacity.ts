/**
 * The `capacity:` block resolved: defaults filled in, fractions and durations as numbers. The SLO stays
 * as written (numbers or strings with units); aggregate/capacity/capacity-slo.ts reads its meaning.
 */
import { parseDurationMs } from '../util/duration.js';
import type { ServiceTier } from '../protocol/chat.js';
import type { CapacityInput } from './sections/capacity.js';

export interface CapacitySpec {
  /** The SLO of the search, as written (e.g. { "ttft_ms.p99": "500ms", error_rate: "1%" }). */
  readonly slo: Readonly<Record<string, number | string>>;
  readonly minCapacity: number | null;
  readonly resolution: number;
  readonly maxSteps: number;
  readonly stepDurationMs: number;
  /** `step_warmup`; null: the default (stepWarmupMs). */
  readonly stepWarmupMs: number | null;
  readonly blockMs: number;
  readonly alpha: number;
  readonly beta: number;
  readonly indifference: number;
  /** First load; null: from a calibration probe. */
  readonly start: number | null;
  readonly maxLoad: number;
  readonly seed: number;
  /** `mix`: each scenario's tiers searched together on the total load, split by weight; null: each group alone. */
  readonly mix: readonly MixMember[] | null;
}

/** One tier of `capacity.mix`. */
export interface MixMember {
  readonly tier: ServiceTier;
  readonly weight: number;
  /** Its own SLO, as written; null: capacity.slo. */
  readonly slo: Readonly<Record<string, number | string>> | null;
}

export const CAPACITY_DEFAULTS = {
  resolution: 0.1,
  maxSteps: 12,
  stepDurationMs: 60_000,
  blockMs: 1000,
  alpha: 0.05,
  beta: 0.05,
  indifference: 0.5,
  maxLoad: 4096,
  seed: 1,
  stepWarmupMs: 5000,
} as const;

/**
 * The untested start of a capacity step: `step_warmup`, else the scenario's `warmup`, else 5 s; the default
 * (either source) at most a quarter of the step, so that a scenario's run warmup (often longer than a
 * step) never leaves a step with nothing tested. A step starts with an empty queue; at a load just over
 * what the server sustains the backlog takes seconds to build, and a step tested from its first second
 * can pass on the transient (measured: 7 and 1 of 10 seeded searches held the truth in their interval
 * without it, 10 of 10 with 5 s; `npm run bench capacity`).
 */
export function stepWarmupMs(spec: CapacitySpec, scenarioWarmupMs: number): number {
  if (spec.stepWarmupMs !== null) return spec.stepWarmupMs;
  const wanted = scenarioWarmupMs > 0 ? scenarioWarmupMs : CAPACITY_DEFAULTS.stepWarmupMs;
  return Math.min(wanted, spec.stepDurationMs / 4);
}

/**
 * Blocks of a step read by no test: the first (connections opening), and those of the step's warmup
 * (stepWarmupMs), sent at the start of every step and keeping the queue it builds (runner/capacity
 * step-monitor.ts rampBlocks).
 */
export function stepRampBlocks(warmupMs: number, blockMs: number): number {
  return 1 + Math.ceil(Math.max(0, warmupMs) / blockMs);
}

function fraction(value: number | string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  return typeof value === 'number' ? value : Number.parseFloat(value) / 100;
}

function durationMs(value: number | string | undefined, fallback: number): number {
  return value === undefined ? fallback : (parseDurationMs(value) ?? fallback);
}

/** `capacity:` with its defaults; `slo` falls back to the profile's top-level slo. */
export function resolveCapacity(input: CapacityInput | undefined, slo: Readonly<Record<string, number>>): CapacitySpec {
  const spec = input ?? {};
  return {
    slo: { ...(spec.slo ?? slo) },
    minCapacity: spec.min_capacity ?? null,
    resolution: fraction(spec.resolution, CAPACITY_DEFAULTS.resolution),
    maxSteps: spec.max_steps ?? CAPACITY_DEFAULTS.maxSteps,
    stepDurationMs: durationMs(spec.step_duration, CAPACITY_DEFAULTS.stepDurationMs),
    stepWarmupMs: spec.step_warmup === undefined ? null : durationMs(spec.step_warmup, 0),
    blockMs: durationMs(spec.block, CAPACITY_DEFAULTS.blockMs),
    alpha: spec.alpha ?? CAPACITY_DEFAULTS.alpha,
    beta: spec.beta ?? CAPACITY_DEFAULTS.beta,
    indifference: fraction(spec.indifference, CAPACITY_DEFAULTS.indifference),
    start: spec.start ?? null,
    maxLoad: spec.max_load ?? CAPACITY_DEFAULTS.maxLoad,
    seed: spec.seed ?? CAPACITY_DEFAULTS.seed,
    mix:
      spec.mix === undefined
        ? null
        : Object.entries(spec.mix).flatMap(([tier, member]) =>
            member === undefined ? [] : [{ tier: tier as ServiceTier, weight: member.weight, slo: member.slo ?? null }],
          ),
  };
}
