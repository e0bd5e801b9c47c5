/**
 * The capacity of a group and its 95% confidence interval, from every step of a search: per objective the
 * exceedance fractions are fitted monotone in load and the capacity is where the fit crosses the allowed
 * fraction (capacity-crossing.ts); the group's capacity is the lowest over its objectives, and that
 * objective binds. The interval comes from the fit refitted on resampled data, seeded (same steps and
 * seed, same interval), by one of three methods:
 *
 * - `bracket` (default): each load's exceedance is drawn from its Jeffreys posterior
 *   Beta(x/D + 1/2, (n - x)/D + 1/2) (D: the design effect of the load's blocks, never below the one pooled
 *   over all steps, design-effect.ts), the draws are fitted monotone, and each draw gives the two loads
 *   tested on either side of its crossing (capacity-crossing.ts crossingBracket). The interval runs from
 *   the 2.5th percentile of the loads below to the 97.5th of the loads above. Why not the interpolated
 *   crossing's percentiles: a monotone curve known at the loads tested may cross anywhere between two of
 *   them, and interpolating linearly pretends to know where; with curves that bend (exceedance grows
 *   faster than linearly as a queue forms) and with steps stopped at a sequential test's first decision
 *   (a FAIL near the crossing stops on a lucky run of exceedances, so its fraction is biased up), the
 *   interpolated interval sat below the truth far more often than 2.5%. Measured on 200 whole simulated
 *   searches per curve (test/unit/aggregate/capacity/capacity-coverage.test.ts; before -> now): a smooth
 *   p99 curve 84% -> 96%, a near-step one (a server of known capacity) 93% -> 100%, requests clustered in
 *   time 61% -> 93%, at the price of width (median 8% -> 24%, 3% -> 4%, 6% -> 24% of the capacity):
 *   along a gently bending curve the steps near the crossing cannot be told apart, and the interval says
 *   so, reaching to the next load the search tried.
 * - `posterior`: the same draws, the 2.5th and 97.5th percentiles of the interpolated crossing.
 * - `block-bootstrap`: each step's blocks of time resampled with replacement (clustered exceedances stay
 *   clustered); one step's blocks are drawn with the same indices for every objective when their counts
 *   agree (they are then the same seconds, and objectives that move together stay together). A step of
 *   one or two blocks has nothing to resample, so this interval is the narrowest and covers least.
 */
import { gamma } from '../../util/distributions.js';
import { createRng, type Rng } from '../../util/rng.js';
import { type Crossing, crossing, crossingBracket, fitExceedance, type LoadCounts } from './capacity-crossing.js';
import type { CapacityObjective } from './capacity-slo.js';
import { designEffectOf, type ExceedanceBlock, pooledDesignEffect } from './design-effect.js';
import { isotonicFit } from './isotonic.js';
import { wilsonInterval } from './proportion-interval.js';

export interface StepBlocks {
  /** Offered load of the step (rate or concurrency). */
  readonly load: number;
  /** Per objective key: the step's blocks, each { exceeded, total }. */
  readonly blocks: Readonly<Record<string, readonly ExceedanceBlock[]>>;
}

/** One load (steps at the same load pooled) of one objective, for charts and capacity.csv. */
export interface FittedPoint {
  readonly load: number;
  readonly exceeded: number;
  readonly total: number;
  /** exceeded / total. */
  readonly observed: number;
  /** The monotone fit at this load. */
  readonly fitted: number;
  /** 95% Wilson interval of `observed`, widened by the design effect of the load's blocks. */
  readonly low: number;
  readonly high: number;
}

export interface CapacityEstimate {
  /** Highest load at which every objective's fitted exceedance <= allowed; null if none passes. */
  readonly capacity: number | null;
  /** True when no load tested was over for the binding objective: `capacity` is the highest load tested, a lower bound. */
  readonly censored: boolean;
  /** 95% CI (see the file comment for how each method makes it); null when capacity is. */
  readonly interval: readonly [number, number] | null;
  /**
   * Which ends of the interval are open: [true, _] when over 2.5% of resamples failed even the lowest load
   * (the low end is then reported as 0), [_, true] when over 2.5% passed every load (the high end is then
   * the highest load tested, and the capacity may be higher).
   */
  readonly intervalCensored: readonly [boolean, boolean];
  /** The objective key that binds (lowest capacity); null when no objective has data. */
  readonly binding: string | null;
  /** Each objective's capacity (null: over at the lowest load, or no data for it). */
  readonly perObjective: Readonly<Record<string, number | null>>;
  readonly perObjectiveCensored: Readonly<Record<string, boolean>>;
  /** Fitted (monotone non-decreasing in load) exceedance per load per objective, loads ascending. */
  readonly fitted: Readonly<Record<string, readonly FittedPoint[]>>;
  /** Bootstrap resamples drawn. */
  readonly resamples: number;
}

export interface CapacityFitOptions {
  readonly seed: number;
  /** Default 1000. */
  readonly resamples?: number;
  /** How the interval resamples (see the file comment); default 'bracket'. */
  readonly method?: IntervalMethod;
}

export type IntervalMethod = 'bracket' | 'posterior' | 'block-bootstrap';

interface Combined {
  readonly capacity: number | null;
  readonly censored: boolean;
  readonly binding: string | null;
}

/** Steps reorganised for fitting: distinct loads ascending, and which load each step adds to. */
interface Layout {
  readonly loads: readonly number[];
  readonly loadIndex: readonly number[];
  readonly keys: readonly string[];
  readonly allowed: readonly number[];
}

export function estimateCapacity(
  steps: readonly StepBlocks[],
  objectives: readonly CapacityObjective[],
  options: CapacityFitOptions,
): CapacityEstimate {
  const layout = layoutOf(steps, objectives);
  const counts = pooledCounts(steps, layout, (blocks) => blocks);
  const effects = designEffects(steps, layout);
  const crossings = layout.keys.map((_, o) => objectiveCrossing(layout, counts, o));
  const point = combine(layout.keys, crossings);
  const resamples = Math.max(1, Math.floor(options.resamples ?? 1000));
  const perObjective: Record<string, number | null> = {};
  const perObjectiveCensored: Record<string, boolean> = {};
  const fitted: Record<string, readonly FittedPoint[]> = {};
  layout.keys.forEach((key, o) => {
    perObjective[key] = crossings[o]?.capacity ?? null;
    perObjectiveCensored[key] = crossings[o]?.censored ?? false;
    fitted[key] = fittedPoints(layout, counts, effects, o);
  });
  const base = { binding: point.binding, perObjective, perObjectiveCensored, fitted, resamples };
  if (point.capacity === null) {
    return { ...base, capacity: null, censored: false, interval: null, intervalCensored: [false, false] };
  }
  const rng = createRng(options.seed);
  const method = options.method ?? 'bracket';
  let interval: Pick<CapacityEstimate, 'interval' | 'intervalCensored'>;
  if (method === 'block-bootstrap')
    interval = percentileInterval(blockBootstrap(steps, layout, resamples, rng), layout);
  else {
    const draws = posteriorDraws(layout, counts, effects, resamples, rng);
    interval =
      method === 'posterior'
        ? percentileInterval(draws.values, layout)
        : bracketInterval(draws, layout, point.capacity);
  }
  return { ...base, capacity: point.capacity, censored: point.censored, ...interval };
}

function layoutOf(steps: readonly StepBlocks[], objectives: readonly CapacityObjective[]): Layout {
  const loads = [...new Set(steps.map((step) => step.load))].sort((a, b) => a - b);
  return {
    loads,
    loadIndex: steps.map((step) => loads.indexOf(step.load)),
    keys: objectives.map((objective) => objective.key),
    allowed: objectives.map((objective) => objective.allowed),
  };
}

/** One step's blocks of one objective. */
type StepObjectiveBlocks = readonly ExceedanceBlock[];

/** [objective][load] of { exceeded, total }, summing the blocks each step contributes (as `pick` chooses them). */
type Counts = { exceeded: number; total: number }[][];

function pooledCounts(
  steps: readonly StepBlocks[],
  layout: Layout,
  pick: (blocks: readonly StepObjectiveBlocks[]) => readonly StepObjectiveBlocks[],
): Counts {
  const counts: Counts = layout.keys.map(() => layout.loads.map(() => ({ exceeded: 0, total: 0 })));
  steps.forEach((step, s) => {
    const chosen = pick(layout.keys.map((key) => step.blocks[key] ?? []));
    chosen.forEach((blocks, o) => {
      const cell = (counts[o] as Counts[number])[layout.loadIndex[s] as number] as Counts[number][number];
      for (const block of blocks) {
        cell.exceeded += block.exceeded;
        cell.total += block.total;
      }
    });
  });
  return counts;
}

/** The loads with data for objective `o`, as LoadCounts. */
function loadCounts(layout: Layout, counts: Counts, o: number): LoadCounts[] {
  const points: LoadCounts[] = [];
  (counts[o] as Counts[number]).forEach((cell, l) => {
    if (cell.total > 0) points.push({ load: layout.loads[l] as number, exceeded: cell.exceeded, total: cell.total });
  });
  return points;
}

/** null when the objective has no data at all (it cannot bind). */
function objectiveCrossing(layout: Layout, counts: Counts, o: number): Crossing | null {
  const points = loadCounts(layout, counts, o);
  if (points.length === 0) return null;
  return crossing(points, fitExceedance(points), layout.allowed[o] as number);
}

/** The lowest capacity binds; an objective over at the lowest load makes the whole null. Ties: uncensored first. */
function combine(keys: readonly string[], crossings: readonly (Crossing | null)[]): Combined {
  let best: Combined = { capacity: null, censored: false, binding: null };
  for (let o = 0; o < keys.length; o++) {
    const found = crossings[o];
    if (!found) continue;
    const key = keys[o] as string;
    if (found.capacity === null) return { capacity: null, censored: false, binding: key };
    const lower =
      best.capacity === null ||
      found.capacity < best.capacity ||
      (found.capacity === best.capacity && best.censored && !found.censored);
    if (lower) best = { capacity: found.capacity, censored: found.censored, binding: key };
  }
  return best;
}

/**
 * [objective][load]: the design effect of all blocks at that load, never below the one pooled over every
 * step of the objective (a step stopped after a block or two cannot show its own clustering).
 */
function designEffects(steps: readonly StepBlocks[], layout: Layout): number[][] {
  return layout.keys.map((key) => {
    const floor = pooledDesignEffect(steps.map((step) => step.blocks[key] ?? []));
    return layout.loads.map((load) =>
      Math.max(
        floor,
        designEffectOf(steps.filter((step) => step.load === load).flatMap((step) => step.blocks[key] ?? [])),
      ),
    );
  });
}

function fittedPoints(layout: Layout, counts: Counts, effects: number[][], o: number): FittedPoint[] {
  const points = loadCounts(layout, counts, o);
  const fit = fitExceedance(points);
  return points.map((point, i) => {
    const effect = effects[o]?.[layout.loads.indexOf(point.load)] ?? 1;
    const [low, high] = wilsonInterval(point.exceeded, point.total, effect);
    return { ...point, observed: point.exceeded / point.total, fitted: fit[i] as number, low, high };
  });
}

/** Capacities refitted on block-resampled steps; -Infinity for a resample below every load tested. */
function blockBootstrap(steps: readonly StepBlocks[], layout: Layout, resamples: number, rng: Rng): number[] {
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const counts = pooledCounts(steps, layout, (blocks) => resampleStep(blocks, rng));
    const crossings = layout.keys.map((_, o) => objectiveCrossing(layout, counts, o));
    values.push(combine(layout.keys, crossings).capacity ?? Number.NEGATIVE_INFINITY);
  }
  return values;
}

/** Per resample: the refitted capacity, and the loads tested on either side of its crossing. */
interface Draws {
  readonly values: number[];
  readonly lows: number[];
  readonly highs: number[];
}

/** Capacities refitted on exceedances drawn from each load's posterior (see the file comment). */
function posteriorDraws(layout: Layout, counts: Counts, effects: number[][], resamples: number, rng: Rng): Draws {
  const points = layout.keys.map((_, o) => loadCounts(layout, counts, o));
  const effective = points.map((loads, o) => loads.map((p) => effects[o]?.[layout.loads.indexOf(p.load)] ?? 1));
  const draws: Draws = { values: [], lows: [], highs: [] };
  for (let r = 0; r < resamples; r++) {
    let low = Number.POSITIVE_INFINITY;
    let high = Number.POSITIVE_INFINITY;
    const crossings = points.map((loads, o) => {
      if (loads.length === 0) return null;
      const designs = effective[o] as number[];
      const drawn = loads.map((point, i) => betaDraw(rng, point.exceeded, point.total, designs[i] as number));
      const fit = isotonicFit(
        drawn,
        loads.map((point, i) => point.total / (designs[i] as number)),
      );
      const allowed = layout.allowed[o] as number;
      const bracket = crossingBracket(loads, fit, allowed);
      low = Math.min(low, bracket.low);
      high = Math.min(high, bracket.high);
      return crossing(loads, fit, allowed);
    });
    draws.values.push(combine(layout.keys, crossings).capacity ?? Number.NEGATIVE_INFINITY);
    draws.lows.push(low);
    draws.highs.push(high);
  }
  return draws;
}

/**
 * The `bracket` interval: from the 2.5th percentile of the load tested below each resample's crossing to
 * the 97.5th of the load tested above it (see the file comment), widened to hold the point estimate.
 */
function bracketInterval(
  draws: Draws,
  layout: Layout,
  capacity: number,
): Pick<CapacityEstimate, 'interval' | 'intervalCensored'> {
  const lows = [...draws.lows].sort((a, b) => a - b);
  const highs = [...draws.highs].sort((a, b) => a - b);
  const low = quantileSorted(lows, 0.025, 'low');
  const high = quantileSorted(highs, 0.975, 'high');
  const highest = layout.loads[layout.loads.length - 1] as number;
  return {
    interval: [Number.isFinite(low) ? Math.min(low, capacity) : 0, Math.max(high, capacity)],
    intervalCensored: [!Number.isFinite(low), high >= highest],
  };
}

/** A draw from Beta(x/D + 1/2, (n - x)/D + 1/2), as a ratio of gamma variates. */
function betaDraw(rng: Rng, exceeded: number, total: number, designEffect: number): number {
  const a = gamma(rng, exceeded / designEffect + 0.5, 1);
  const b = gamma(rng, (total - exceeded) / designEffect + 0.5, 1);
  return a / (a + b);
}

function percentileInterval(values: number[], layout: Layout): Pick<CapacityEstimate, 'interval' | 'intervalCensored'> {
  values.sort((a, b) => a - b);
  const low = quantileSorted(values, 0.025, 'low');
  const high = quantileSorted(values, 0.975, 'high');
  const highest = layout.loads[layout.loads.length - 1] as number;
  return {
    interval: [Number.isFinite(low) ? low : 0, Number.isFinite(high) ? high : 0],
    intervalCensored: [!Number.isFinite(low), high >= highest],
  };
}

/** One step's blocks resampled with replacement: the same indices for every objective when their counts agree. */
function resampleStep(blocks: readonly StepObjectiveBlocks[], rng: Rng): ExceedanceBlock[][] {
  const sizes = new Set(blocks.map((list) => list.length));
  if (sizes.size === 1) {
    const size = blocks[0]?.length ?? 0;
    const indices = Array.from({ length: size }, () => rng.int(0, size - 1));
    return blocks.map((list) => indices.map((index) => list[index] as ExceedanceBlock));
  }
  return blocks.map((list) =>
    Array.from({ length: list.length }, () => list[rng.int(0, list.length - 1)] as ExceedanceBlock),
  );
}

/**
 * Linear interpolation between order statistics (R's type 7). When a neighbour is infinite (a resample
 * below every load tested) the `low` end takes the lower neighbour and the `high` end the higher one, so
 * an open end is never hidden by interpolation.
 */
function quantileSorted(sorted: readonly number[], p: number, end: 'low' | 'high'): number {
  const h = p * (sorted.length - 1);
  const below = sorted[Math.floor(h)] as number;
  const above = sorted[Math.ceil(h)] as number;
  if (!Number.isFinite(below) || !Number.isFinite(above)) return end === 'low' ? below : above;
  return below + (h - Math.floor(h)) * (above - below);
}
