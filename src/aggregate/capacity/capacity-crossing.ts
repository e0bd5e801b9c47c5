/**
 * Where one objective's exceedance, fitted monotone in load, crosses its allowed fraction: the capacity
 * for that objective. The fit is isotonic (isotonic.ts) over the steps pooled by load; the crossing is
 * interpolated linearly between the last load fitted at or under `allowed` and the first over it. No step
 * over: the highest load tested, censored (the capacity is at least that). The lowest step over: null
 * (the capacity is below every load tested).
 */
import { isotonicFit } from './isotonic.js';

/** One load's pooled counts for one objective; loads ascending and distinct, total > 0. */
export interface LoadCounts {
  readonly load: number;
  readonly exceeded: number;
  readonly total: number;
}

export interface Crossing {
  /** null when even the lowest load is over `allowed`. */
  readonly capacity: number | null;
  /** True when no load is over: `capacity` is the highest load tested, a lower bound. */
  readonly censored: boolean;
}

/** The monotone fit of exceedance fractions, weighted by request counts. */
export function fitExceedance(points: readonly LoadCounts[]): number[] {
  return isotonicFit(
    points.map((point) => point.exceeded / point.total),
    points.map((point) => point.total),
  );
}

/** The crossing of `allowed` by the fitted curve (see the file comment); no points: null, uncensored. */
export function crossing(points: readonly LoadCounts[], fitted: readonly number[], allowed: number): Crossing {
  if (points.length === 0) return { capacity: null, censored: false };
  const over = fitted.findIndex((value) => value > allowed);
  if (over === 0) return { capacity: null, censored: false };
  if (over < 0) return { capacity: (points[points.length - 1] as LoadCounts).load, censored: true };
  const below = points[over - 1] as LoadCounts;
  const above = points[over] as LoadCounts;
  const fitBelow = fitted[over - 1] as number;
  const fitAbove = fitted[over] as number;
  const share = (allowed - fitBelow) / (fitAbove - fitBelow);
  return { capacity: below.load + share * (above.load - below.load), censored: false };
}

/**
 * The loads tested on either side of the crossing: `low` the last load fitted at or under `allowed`
 * (-Infinity when even the lowest is over), `high` the first fitted over it (the highest load tested when
 * none is: the crossing is then at least that, and `high` is a lower bound too). A monotone curve known
 * only at the loads tested may cross anywhere between them; the interpolated `crossing` is one guess of
 * where, and the bracket is what the data alone can say.
 */
export function crossingBracket(
  points: readonly LoadCounts[],
  fitted: readonly number[],
  allowed: number,
): { readonly low: number; readonly high: number } {
  const over = fitted.findIndex((value) => value > allowed);
  const highest = (points[points.length - 1] as LoadCounts).load;
  if (over < 0) return { low: highest, high: highest };
  const high = (points[over] as LoadCounts).load;
  return { low: over === 0 ? Number.NEGATIVE_INFINITY : (points[over - 1] as LoadCounts).load, high };
}
