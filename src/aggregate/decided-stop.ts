/**
 * `stop_when_decided`: the run stops as soon as every threshold of every group it applies to has passed or
 * failed by a sequential test, the capacity search's own (capacity/exceedance-sprt.ts: Wald's SPRT on an
 * exceedance fraction, with the profile's capacity alpha, beta and indifference zone, and the design-effect
 * correction for blocks of time). A threshold a test can decide is an upper bound on a fraction of requests:
 * `ttft_ms.p99 < 800` holds while at most 1% of requests take longer than 800 ms (failed requests count as
 * exceeding, as in capacity), `error_rate < 0.01` while at most 1% of requests fail. A mean, a min or max,
 * a throughput, a pass rate or a `>` cannot be decided so: one such threshold keeps the whole run going to
 * its end (undecidableReasons says why, validate prints it). So does a scenario whose load changes during
 * the run (stages, a trace replay, a sweep): the test assumes one load throughout, and a ramp would be
 * judged before it reached its peak (unsteadyLoads).
 *
 * The tests read the collector's live numbers on the runner's tick (early-stop.ts calls `check`): each
 * tick's new requests of a group are one block. Each group's tests start when its measured part does
 * (warmup excluded, as the final evaluation). After the stop the thresholds are still evaluated on all the
 * data measured, as usual; the sequential verdicts are recorded beside them in summary.json `stopped`.
 */
import { allowedOver } from './capacity/capacity-slo.js';
import type { MetricName } from '../metrics/metric-registry.js';
import { LATENCY_METRICS } from '../metrics/metric-registry.js';
import type { DecidedThreshold, RunStopped } from '../metrics/run-summary.js';
import type { ResolvedGroup, ResolvedProfile, ThresholdSpec } from '../profile/resolved-profile.js';
import { ExceedanceSprt } from './capacity/exceedance-sprt.js';
import { metricScale } from './histogram.js';
import { countAbove } from './histogram-count.js';
import type { LiveGroup } from './live-thresholds.js';

/** The error rates of the tests: the profile's `capacity:` alpha, beta and indifference (0.05, 0.05, 0.5 by default). */
export interface DecisionRates {
  readonly alpha: number;
  readonly beta: number;
  readonly indifference: number;
}

/** A threshold read as an exceedance objective: how many of a group's requests may lie beyond `limit`. */
export interface SequentialObjective {
  /** "ttft_ms", ... or "error_rate". */
  readonly metric: string;
  /** Allowed exceedance fraction: 0.01 for a p99, the limit itself for error_rate. */
  readonly allowed: number;
  /** In recorded units (µs for a latency); unused for error_rate. */
  readonly limitRecorded: number;
}

const ERROR_RATE = 'error_rate';

/**
 * The objective a sequential test can decide `spec` by, or a sentence saying why none can (for validate and
 * the docs): only `<` / `<=` on a latency percentile or on error_rate, with an allowed fraction the test can
 * tell apart from its indifference zone (allowed x (1 + indifference) below 1).
 */
export function sequentialObjective(spec: ThresholdSpec, rates: DecisionRates): SequentialObjective | string {
  if (spec.op !== '<' && spec.op !== '<=') return `"${spec.op}" is a lower bound: no exceedance fraction to test`;
  let objective: SequentialObjective;
  if (spec.stat === null) {
    if (spec.metric !== ERROR_RATE) return `${spec.metric} is no fraction of requests`;
    objective = { metric: ERROR_RATE, allowed: spec.value, limitRecorded: spec.value };
  } else {
    if (!(LATENCY_METRICS as readonly string[]).includes(spec.metric)) return `${spec.metric} is not a latency`;
    const allowed = allowedOver(spec.stat);
    if (allowed === null) return `${spec.stat} is no percentile (a sequential test needs p50 to p99.9)`;
    objective = { metric: spec.metric, allowed, limitRecorded: spec.value * metricScale(spec.metric as MetricName) };
  }
  if (!(objective.allowed > 0 && objective.allowed * (1 + rates.indifference) < 1)) {
    return `an allowed fraction of ${objective.allowed} cannot be tested with indifference ${rates.indifference}`;
  }
  return objective;
}

/** Per threshold of the profile, null when a test can decide it, else why not (validate prints these). */
export function undecidableReasons(profile: ResolvedProfile): { expression: string; reason: string | null }[] {
  const rates = decisionRates(profile);
  return profile.thresholds.map((spec) => {
    const objective = sequentialObjective(spec, rates);
    if (typeof objective === 'string') return { expression: spec.expression, reason: objective };
    if (spec.group !== null && !profile.groups.some((g) => g.key === spec.group))
      return { expression: spec.expression, reason: `no group ${spec.group}` };
    return { expression: spec.expression, reason: null };
  });
}

/** The scenarios whose load changes during the run, each with why: a ramp must not be judged before its peak. */
export function unsteadyLoads(profile: ResolvedProfile): { scenario: string; reason: string }[] {
  return profile.scenarios.flatMap((scenario) => {
    const { load } = scenario;
    const reason =
      scenario.sweep !== undefined
        ? 'a sweep: its load changes from phase to phase'
        : load.stages !== null
          ? 'load.stages: its load changes during the run'
          : load.mode === 'rate' && load.trace !== undefined
            ? 'a trace replay: its load follows the trace'
            : null;
    return reason === null ? [] : [{ scenario: scenario.name, reason }];
  });
}

export function decisionRates(profile: ResolvedProfile): DecisionRates {
  const { alpha, beta, indifference } = profile.capacity;
  return { alpha, beta, indifference };
}

/**
 * Of a group's requests so far, how many exceeded the objective and of how many: failed requests exceed
 * every objective (as in capacity); ITL has one observation per gap, every other latency one per ok request
 * (an ok request without the value, e.g. no time_info, exceeds nothing).
 */
export function liveExceedance(objective: SequentialObjective, live: LiveGroup): { exceeded: number; total: number } {
  if (objective.metric === ERROR_RATE) return { exceeded: live.failed, total: live.ok + live.failed };
  const histogram = live.histogram(objective.metric as MetricName);
  const above = histogram === undefined ? 0 : countAbove(histogram, objective.limitRecorded);
  const observations = objective.metric === 'itl_ms' ? (histogram?.totalCount ?? 0) : live.ok;
  return { exceeded: live.failed + above, total: live.failed + observations };
}

/** One threshold on one group: its test and what it had counted at the previous tick. */
interface GroupTest {
  readonly spec: ThresholdSpec;
  readonly group: ResolvedGroup;
  readonly objective: SequentialObjective;
  readonly test: ExceedanceSprt;
  seen: { exceeded: number; total: number };
  decidedAtUs: number | null;
}

/** The tests of one run; null from createDecidedStop when the profile does not ask or cannot be decided. */
export class DecidedStop {
  readonly #rates: DecisionRates;
  readonly #tests: GroupTest[] = [];
  readonly #measuring = new Set<number>();
  readonly #runStartUs: number;

  constructor(profile: ResolvedProfile, objectives: readonly SequentialObjective[], runStartUs: number) {
    this.#rates = decisionRates(profile);
    this.#runStartUs = runStartUs;
    profile.thresholds.forEach((spec, i) => {
      const objective = objectives[i] as SequentialObjective;
      for (const group of profile.groups) {
        if (spec.group !== null && spec.group !== group.key) continue;
        const test = new ExceedanceSprt({ allowed: objective.allowed, ...this.#rates });
        this.#tests.push({ spec, group, objective, test, seen: { exceeded: 0, total: 0 }, decidedAtUs: null });
      }
    });
  }

  /** A group's measured part starts now: its tests read it from the next tick on. */
  measuring(groupIndex: number): void {
    this.#measuring.add(groupIndex);
  }

  /**
   * Feeds each measured group's requests since the last call to its tests (one block), and returns the
   * `decided` stop once every test has decided, else null.
   */
  check(live: (groupIndex: number) => LiveGroup | undefined, nowUs: number): RunStopped | null {
    for (const entry of this.#tests) {
      if (entry.decidedAtUs !== null || !this.#measuring.has(entry.group.index)) continue;
      const group = live(entry.group.index);
      if (group === undefined) continue;
      const now = liveExceedance(entry.objective, group);
      const exceeded = now.exceeded - entry.seen.exceeded;
      const total = now.total - entry.seen.total;
      // A histogram's count above a limit is read at its resolution; it never shrinks, but be safe.
      if (total <= 0 || exceeded < 0 || exceeded > total) continue;
      entry.seen = now;
      entry.test.addBlock(exceeded, total);
      if (entry.test.decision !== 'undecided') entry.decidedAtUs = nowUs;
    }
    if (this.#tests.some((entry) => entry.decidedAtUs === null)) return null;
    return {
      reason: 'decided',
      at_s: this.#atS(nowUs),
      ...this.#rates,
      thresholds: this.#tests.map((entry) => this.#verdict(entry)),
    };
  }

  #verdict(entry: GroupTest): DecidedThreshold {
    const { test } = entry;
    return {
      threshold: entry.spec.expression,
      group: entry.group.key,
      verdict: test.decision === 'fail' ? 'fail' : 'pass',
      at_s: this.#atS(entry.decidedAtUs ?? 0),
      requests: test.requests,
      exceeded: test.exceeded,
      allowed: entry.objective.allowed,
      design_effect: Math.round(test.designEffect * 100) / 100,
    };
  }

  #atS(nowUs: number): number {
    return Math.round((nowUs - this.#runStartUs) / 1000) / 1000;
  }
}

/**
 * The run's decided-stop tests, or null when the profile does not set stop_when_decided, has no threshold,
 * has one that no test can decide, or a scenario whose load changes (the run then goes to its end).
 */
export function createDecidedStop(profile: ResolvedProfile, runStartUs: number): DecidedStop | null {
  if (profile.stopWhenDecided !== true || profile.thresholds.length === 0) return null;
  if (undecidableReasons(profile).some((entry) => entry.reason !== null)) return null;
  if (unsteadyLoads(profile).length > 0) return null;
  const rates = decisionRates(profile);
  const objectives = profile.thresholds.map((spec) => sequentialObjective(spec, rates) as SequentialObjective);
  return new DecidedStop(profile, objectives, runStartUs);
}

/**
 * What `validate` and `run` say of a profile with stop_when_decided: per threshold, whether a sequential test
 * can decide it, and when one cannot, that the run goes to its end.
 */
export function describeDecidability(profile: ResolvedProfile): string[] {
  const { alpha, beta, indifference } = decisionRates(profile);
  if (profile.thresholds.length === 0) return ['stop_when_decided: no thresholds to decide; the run goes to its end'];
  const reasons = undecidableReasons(profile);
  const lines = reasons.map(({ expression, reason }) =>
    reason === null ? `  ${expression}: can stop early` : `  ${expression}: cannot stop early (${reason})`,
  );
  const unsteady = unsteadyLoads(profile).map(
    ({ scenario, reason }) => `  scenario ${scenario}: cannot stop early (${reason})`,
  );
  const undecidable = reasons.some((entry) => entry.reason !== null) || unsteady.length > 0;
  const head = undecidable
    ? 'stop_when_decided: the run goes to its end (it stops early only when a sequential test can decide every threshold, on a steady load):'
    : `stop_when_decided: every threshold can stop the run early (sequential tests, alpha ${alpha}, beta ${beta}, indifference ${indifference}):`;
  return [head, ...lines, ...unsteady];
}
