/**
 * Server objectives of a capacity SLO: a bound on one of the target's own concepts over a step
 * (target.server_metrics), e.g. `kv_cache_usage.max: 95%`, `waiting.mean: 8`, `server_queue_time.p99: 200ms`.
 * The key is `<concept>.<statistic>` (docs/server-metrics.md: the concepts and how a window reduces them);
 * the statistic is read from the step's window (its group's `server.measured`), and the objective holds
 * while it is at most the bound. It is a yes/no of the whole step, not a share of requests: a step whose
 * latency tests passed (or stayed undecided at the step's cap) FAILS when a server objective is over, and
 * its reason names it; a step with no value for the concept (not scraped, not exposed) is not decided by it.
 * Its capacity in the fit (withServerObjectives) is the highest load decided with the bound held below the
 * lowest load that broke it; when that is the lowest of all objectives it binds, and the interval is the
 * bracket the steps give: from that load to the first that broke it.
 */
import {
  SERVER_CONCEPT_SPECS,
  SERVER_CONCEPTS,
  SERVER_OBJECTIVE_STATS,
  type ServerConcept,
  type ServerObjectiveStat,
  serverStatProblem,
} from '../../metrics/server-concepts.js';
import type { ServerPhaseSummary } from '../../metrics/server-summary.js';
import type { CapacityEstimate } from './capacity-fit.js';

export { SERVER_OBJECTIVE_STATS, type ServerObjectiveStat };

export interface ServerObjective {
  /** "kv_cache_usage.max". */
  readonly key: string;
  readonly concept: ServerConcept;
  readonly stat: ServerObjectiveStat;
  /** The upper bound, in the concept's unit (a ratio 0..1, ms, requests, ...). */
  readonly limit: number;
}

/** One server objective over one step: the statistic seen (null: none) and whether it held (null: not known). */
export interface ServerCheck {
  readonly key: string;
  readonly value: number | null;
  readonly limit: number;
  readonly held: boolean | null;
}

/** True for a key naming a server concept (`kv_cache_usage.max`), whatever its statistic. */
export function isServerObjectiveKey(key: string): boolean {
  const dot = key.indexOf('.');
  return dot > 0 && (SERVER_CONCEPTS as readonly string[]).includes(key.slice(0, dot));
}

const NUMBER = /^(?:<=?\s*)?(\d+(?:\.\d+)?)\s*(%|us|ms|s)?$/;
const MS_PER_UNIT: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1000 };

/** A server objective, or what is wrong with it (a key isServerObjectiveKey accepted). */
export function parseServerObjective(key: string, value: number | string): ServerObjective | string {
  const dot = key.indexOf('.');
  const concept = key.slice(0, dot) as ServerConcept;
  const stat = key.slice(dot + 1);
  // Only a statistic the concept's kind has in its window: any other would never decide a step.
  const problem = serverStatProblem(concept, stat);
  if (problem !== null) return problem;
  const { unit } = SERVER_CONCEPT_SPECS[concept];
  let limit: number;
  if (typeof value === 'number') limit = value;
  else {
    const match = NUMBER.exec(value.trim());
    if (!match) return `expected a number${unit === 'ratio' ? ' or a percentage ("95%")' : ''}, got "${value}"`;
    const suffix = match[2];
    limit = Number(match[1]);
    if (suffix === '%') {
      if (unit !== 'ratio') return `${concept} is in ${unit}, not a ratio: write its bound without "%"`;
      limit /= 100;
    } else if (suffix !== undefined) {
      if (unit !== 'ms') return `${concept} is in ${unit}, not a duration: write its bound without "${suffix}"`;
      limit *= MS_PER_UNIT[suffix] as number;
    }
  }
  if (!Number.isFinite(limit) || limit < 0) return `expected a bound of 0 or more, got ${value}`;
  return { key, concept, stat: stat as ServerObjectiveStat, limit };
}

/** The objective's statistic over a step's server window; null when the window has no such value. */
export function serverObjectiveValue(server: ServerPhaseSummary | null, objective: ServerObjective): number | null {
  const concept = server?.concepts[objective.concept];
  if (concept === undefined) return null;
  const value = (concept as Readonly<Record<string, unknown>>)[objective.stat];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Every server objective over one step's window. */
export function serverChecks(server: ServerPhaseSummary | null, objectives: readonly ServerObjective[]): ServerCheck[] {
  return objectives.map((objective) => {
    const value = serverObjectiveValue(server, objective);
    return {
      key: objective.key,
      value,
      limit: objective.limit,
      held: value === null ? null : value <= objective.limit,
    };
  });
}

/**
 * A step's verdict with its server objectives: a PASS, or a step left undecided by its tests, becomes FAIL
 * when a server objective is over (reason: the objectives over, then what the tests said); a FAIL stays
 * one. `spoiled`: interrupted or the harness was its own bottleneck; nothing is decided then.
 */
export function withServerChecks(
  step: { readonly outcome: 'pass' | 'fail' | 'inconclusive'; readonly reason: string; readonly spoiled: boolean },
  checks: readonly ServerCheck[],
): { outcome: 'pass' | 'fail' | 'inconclusive'; reason: string } {
  const over = checks.filter((check) => check.held === false);
  if (step.spoiled || step.outcome === 'fail' || over.length === 0)
    return { outcome: step.outcome, reason: step.reason };
  const said = over.map((check) => `${check.key} ${formatBound(check.value as number)} > ${formatBound(check.limit)}`);
  return { outcome: 'fail', reason: `server over its bound: ${said.join(', ')}; tests: ${step.reason}` };
}

function formatBound(value: number): string {
  return String(Number(value.toPrecision(4)));
}

/** One decided step as the server objectives' fit reads it. */
export interface ServerStep {
  readonly load: number;
  readonly checks: readonly ServerCheck[];
}

/**
 * Where one server objective breaks: `capacity` the highest load that held below the lowest that broke
 * (null: even the lowest load with a value broke it), `over` that lowest breaking load (null: none broke
 * it, the capacity is then the highest load that held, censored). Null when no step has a value.
 */
export function serverCrossing(
  steps: readonly ServerStep[],
  key: string,
): { capacity: number | null; censored: boolean; over: number | null } | null {
  const seen = steps.flatMap((step) => {
    const held = step.checks.find((check) => check.key === key)?.held;
    return held === undefined || held === null ? [] : [{ load: step.load, held }];
  });
  if (seen.length === 0) return null;
  const broke = seen.filter((s) => !s.held).map((s) => s.load);
  const over = broke.length === 0 ? null : Math.min(...broke);
  const below = seen.filter((s) => s.held && (over === null || s.load < over)).map((s) => s.load);
  const capacity = below.length === 0 ? null : Math.max(...below);
  return { capacity, censored: over === null, over };
}

/**
 * The fit of the request objectives with the server objectives added (see the file comment): each gets its
 * capacity in `perObjective`; the lowest capacity of all binds, and when a server objective binds, the
 * capacity is its crossing and the interval its bracket (the load that held to the one that broke).
 */
export function withServerObjectives(
  estimate: CapacityEstimate,
  steps: readonly ServerStep[],
  objectives: readonly ServerObjective[],
): CapacityEstimate {
  if (objectives.length === 0) return estimate;
  let result = estimate;
  const perObjective = { ...estimate.perObjective };
  const perObjectiveCensored = { ...estimate.perObjectiveCensored };
  for (const objective of objectives) {
    const found = serverCrossing(steps, objective.key);
    perObjective[objective.key] = found?.capacity ?? null;
    perObjectiveCensored[objective.key] = found?.censored ?? false;
    if (found === null || (found.censored && result.binding !== null)) continue;
    const lower =
      result.binding === null ||
      (result.capacity !== null && (found.capacity === null || found.capacity < result.capacity));
    if (!lower) continue;
    result = {
      ...result,
      capacity: found.capacity,
      censored: found.censored,
      binding: objective.key,
      interval: found.capacity === null ? null : [found.capacity, found.over ?? found.capacity],
      intervalCensored: [false, found.over === null],
    };
  }
  return { ...result, perObjective, perObjectiveCensored };
}

/** A server objective as a reader says it: `kv_cache_usage.max <= 95%`, `server_ttft.p99 <= 500 ms`, `waiting.mean <= 8`. */
export function serverObjectiveLabel(objective: { readonly key: string; readonly limit: number }): string {
  const dot = objective.key.indexOf('.');
  const concept = objective.key.slice(0, dot) as ServerConcept;
  // A counter's rate statistics (per_s, max_per_s, p99_per_s) are in its unit per second.
  const unit = `${SERVER_CONCEPT_SPECS[concept].unit}${objective.key.endsWith('per_s') ? '/s' : ''}`;
  const value = (v: number) => String(Number(v.toPrecision(4)));
  const bound =
    unit === 'ratio'
      ? `${value(objective.limit * 100)}%`
      : /^(?:requests|preemptions|tokens)(?:\/s)?$/.test(unit)
        ? value(objective.limit)
        : `${value(objective.limit)} ${unit}`;
  return `${objective.key} <= ${bound}`;
}
