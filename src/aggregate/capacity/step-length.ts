/**
 * How long a capacity step may run, and the lowest load at which one can decide. A step ends when every
 * objective's sequential test has decided (or one failed), or at its cap, `capacity.max_step_duration`.
 * A test decides only after enough requests (exceedance-sprt.ts requestsToDecide: 582 for a p99 at a load
 * that clearly holds, 5874 for a p99.9), so a low load cannot be judged in a short step: at 5 req/s a p99
 * needs about two minutes. Two rules follow, both pure (the runner applies them, the simulations test them):
 *
 * - the default cap (`max_step_duration` not set) is long enough that a p99 objective (1% allowed, the
 *   slowest common one) decides at half the search's start load (one probe below the start), and never
 *   shorter than 60 s;
 * - a search never runs a load at which some objective of its SLO cannot decide within the cap: its
 *   lowest load is raised to the lowest one that can (a p99.9, say, at a start sized for a p99), and its
 *   start with it. A failure there is an upper bound: the capacity is below it.
 */
import type { CapacityObjective } from './capacity-slo.js';
import { requestsToDecide } from './exceedance-sprt.js';

/** A rate search without `capacity.start` begins with one stream for this long (its e2e gives the start). */
export const CALIBRATION_MS = 4000;
/** Times a step the harness spoiled (its own bottleneck) is run again before it ends the search. */
export const HARNESS_RETRIES = 3;
/** The longest a decided step waits for its requests in flight before cutting them off. */
export const STEP_GRACEFUL_STOP_MS = 10_000;
/** Geometric factor of the planner's probes (aggregate/capacity/capacity-search.ts). */
export const SEARCH_GROWTH = 2;

/** Up to 3 significant digits, never below `value`: a load at least as high as needed, and readable. */
export function ceilTo3Digits(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return value;
  const scale = 10 ** (Math.floor(Math.log10(value)) - 2);
  return Number((Math.ceil(value / scale - 1e-9) * scale).toPrecision(3));
}

/** The sequential tests' settings (capacity.alpha, beta, indifference). */
export interface TestSettings {
  readonly alpha: number;
  readonly beta: number;
  readonly indifference: number;
}

/** The objective the default cap is sized for: a p99, 1% allowed. */
const COMMON_ALLOWED = 0.01;
/** The default cap is never shorter than this (the cap before it was computed). */
export const MIN_DEFAULT_STEP_MS = 60_000;

/**
 * Seconds of a step its tests read: the cap less its untested start (`untestedMs`: the ramp-up block and
 * the step warmup) and one block more (the last block closes a little after it ends, and may not be read).
 */
export function testedSeconds(capMs: number, untestedMs: number, blockMs: number): number {
  return Math.max(0, capMs - untestedMs - blockMs) / 1000;
}

/**
 * The default cap for a search starting at `startPerS` requests per second: a p99 objective decides at
 * half that (requestsToDecide requests), after the untested start; whole blocks, at least 60 s.
 */
export function defaultStepCapMs(tests: TestSettings, startPerS: number, untestedMs: number, blockMs: number): number {
  const needed = requestsToDecide({ ...tests, allowed: COMMON_ALLOWED });
  const testedMs = (needed / (startPerS / 2)) * 1000;
  const capMs = Math.ceil((untestedMs + blockMs + testedMs) / blockMs) * blockMs;
  return Number.isFinite(capMs) ? Math.max(MIN_DEFAULT_STEP_MS, capMs) : MIN_DEFAULT_STEP_MS;
}

/** The objective that needs the most requests to decide, and how many. */
export function slowestObjective(
  objectives: readonly CapacityObjective[],
  tests: TestSettings,
): { readonly key: string; readonly requests: number } | null {
  let slowest: { key: string; requests: number } | null = null;
  for (const objective of objectives) {
    const requests = requestsToDecide({ ...tests, allowed: objective.allowed });
    if (slowest === null || requests > slowest.requests) slowest = { key: objective.key, requests };
  }
  return slowest;
}

/**
 * The lowest rate of requests (per second) at which every objective can decide within the cap; 0 when
 * there are no objectives. A load below it can only FAIL or be undecided.
 */
export function lowestDecidablePerS(
  objectives: readonly CapacityObjective[],
  tests: TestSettings,
  capMs: number,
  untestedMs: number,
  blockMs: number,
): number {
  const slowest = slowestObjective(objectives, tests);
  if (slowest === null) return 0;
  const seconds = testedSeconds(capMs, untestedMs, blockMs);
  return seconds > 0 ? slowest.requests / seconds : Number.POSITIVE_INFINITY;
}
