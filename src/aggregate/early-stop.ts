/**
 * Stopping a run early, judged on its live numbers: a threshold with abort_on_fail that fails (k6's
 * abortOnFail, its grace period delayAbortEval), or a group whose error rate passes its scenario's
 * max_error_rate. Each group is judged from the start of its own measured part (warmup excluded), so a
 * grace period means the same in a run's first scenario and its last. The runner calls `check` on its
 * tick (once a second) and stops like Ctrl-C when it returns a reason; a group with no result yet is
 * never judged. A `--max-cost` budget stops the run once the spend so far (cost-meter.ts) reaches it.
 * With `stop_when_decided`, the run stops once every threshold is decided by a sequential test
 * (decided-stop.ts), checked last: a failure or the budget says more than a verdict.
 */
import type { RunStopped } from '../metrics/run-summary.js';
import type { MaxErrorRateSpec, ResolvedProfile, ThresholdSpec } from '../profile/resolved-profile.js';
import type { SpendBudget } from './cost/cost-meter.js';
import { createDecidedStop, type DecidedStop } from './decided-stop.js';
import { liveThresholdValue, type LiveGroup } from './live-thresholds.js';
import { thresholdHolds } from './thresholds.js';

/** A group's live numbers by group index (the collector's `live`), or undefined when it has none. */
export type LiveGroups = (groupIndex: number) => LiveGroup | undefined;

/** The checks of one run; null from createEarlyStop when the profile asks for none. */
export class EarlyStop {
  readonly #abortThresholds: readonly ThresholdSpec[];
  /** max_error_rate of each group's scenario, by group index (undefined: none). */
  readonly #maxErrorRate: (MaxErrorRateSpec | undefined)[] = [];
  /** When each group's measured part started (µs, the client's clock); unset: not yet. */
  readonly #measuredFromUs = new Map<number, number>();
  readonly #runStartUs: number;
  readonly #budget: SpendBudget | null;
  readonly #decided: DecidedStop | null;

  constructor(profile: ResolvedProfile, runStartUs: number, budget: SpendBudget | null = null) {
    this.#budget = budget;
    this.#decided = createDecidedStop(profile, runStartUs);
    this.#abortThresholds = profile.thresholds.filter((spec) => spec.abortOnFail !== undefined);
    for (const group of profile.groups)
      this.#maxErrorRate[group.index] = profile.scenarios.find((s) => s.name === group.scenario)?.maxErrorRate;
    this.#runStartUs = runStartUs;
  }

  /** A group's measured part starts now: its grace periods run from here. */
  measuring(groupIndex: number, atUs: number): void {
    if (!this.#measuredFromUs.has(groupIndex)) this.#measuredFromUs.set(groupIndex, atUs);
    this.#decided?.measuring(groupIndex);
  }

  /**
   * Why the run must stop now, or null. The budget comes first (money spent cannot be taken back), then
   * thresholds: they decide the exit code (99).
   */
  check(live: LiveGroups, nowUs: number): RunStopped | null {
    const overBudget = this.#overBudget(nowUs);
    if (overBudget !== null) return overBudget;
    for (const [groupIndex, fromUs] of this.#measuredFromUs) {
      const group = live(groupIndex);
      if (group === undefined) continue;
      const stopped = this.#failedThreshold(group, nowUs - fromUs, nowUs);
      if (stopped !== null) return stopped;
    }
    for (const [groupIndex, fromUs] of this.#measuredFromUs) {
      const group = live(groupIndex);
      const limit = this.#maxErrorRate[groupIndex];
      if (group === undefined || limit === undefined) continue;
      const stopped = this.#tooManyErrors(group, limit, nowUs - fromUs, nowUs);
      if (stopped !== null) return stopped;
    }
    return this.#decided?.check(live, nowUs) ?? null;
  }

  #failedThreshold(group: LiveGroup, measuredUs: number, nowUs: number): RunStopped | null {
    for (const spec of this.#abortThresholds) {
      if (spec.group !== null && spec.group !== group.group.key) continue;
      if (measuredUs < (spec.abortOnFail?.delayMs ?? 0) * 1000) continue;
      const actual = liveThresholdValue(spec, group);
      if (actual === null || thresholdHolds(actual, spec.op, spec.value)) continue;
      return {
        reason: 'abort_on_fail',
        at_s: this.#atS(nowUs),
        threshold: spec.expression,
        group: group.group.key,
        actual,
      };
    }
    return null;
  }

  #tooManyErrors(group: LiveGroup, limit: MaxErrorRateSpec, measuredUs: number, nowUs: number): RunStopped | null {
    const ended = group.ok + group.failed;
    if (measuredUs < limit.delayMs * 1000 || ended < limit.minRequests) return null;
    const errorRate = group.failed / ended;
    if (errorRate <= limit.rate) return null;
    return {
      reason: 'max_error_rate',
      at_s: this.#atS(nowUs),
      group: group.group.key,
      max_error_rate: limit.rate,
      error_rate: Math.round(errorRate * 10_000) / 10_000,
      requests: ended,
      errors: { ...group.errors },
    };
  }

  #overBudget(nowUs: number): RunStopped | null {
    if (this.#budget === null) return null;
    const spent = this.#budget.spentUsd(nowUs);
    if (spent < this.#budget.maxUsd) return null;
    return { reason: 'max_cost', at_s: this.#atS(nowUs), max_cost_usd: this.#budget.maxUsd, spent_usd: spent };
  }

  #atS(nowUs: number): number {
    return Math.round((nowUs - this.#runStartUs) / 1000) / 1000;
  }
}

/**
 * The run's early-stop checks, or null when no threshold has abort_on_fail, no scenario max_error_rate,
 * there is no budget and the profile does not ask to stop when decided (decided-stop.ts).
 */
export function createEarlyStop(
  profile: ResolvedProfile,
  runStartUs: number,
  budget: SpendBudget | null = null,
): EarlyStop | null {
  const any =
    budget !== null ||
    profile.stopWhenDecided === true ||
    profile.thresholds.some((spec) => spec.abortOnFail !== undefined) ||
    profile.scenarios.some((scenario) => scenario.maxErrorRate !== undefined);
  return any ? new EarlyStop(profile, runStartUs, budget) : null;
}
