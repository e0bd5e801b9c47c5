/**
 * Rounds, medians and ranges of the client benchmark, and the one builder of its result lines. A full run
 * makes ROUNDS rounds of everything and discards the first (cold JIT, connections, page faults); the
 * clients under comparison alternate inside each round, first one then the other, swapping the order
 * every round, so that a drift of the machine's load falls on both. `--quick` makes one short round and
 * keeps it.
 */
import { median } from './accuracy-quantiles.js';
import type { ClientTargetResult } from './client-targets.js';

export { median };

/** Rounds of a full run (the first is discarded). */
const ROUNDS = 4;

export function roundCount(quick: boolean): number {
  return quick ? 1 : ROUNDS;
}

/** The rounds that count. */
export function keptRounds<T>(values: readonly T[], quick: boolean): T[] {
  return quick ? [...values] : values.slice(1);
}

/** Smallest and largest, or null for fewer than two values. */
export function range(values: readonly number[]): [number, number] | null {
  if (values.length < 2) return null;
  return [Math.min(...values), Math.max(...values)];
}

/**
 * Runs `rounds` rounds of every client in `runs`, alternating their order (round r starts with client
 * r mod n), and returns each client's results in round order.
 */
export async function alternate<T>(rounds: number, runs: readonly (() => Promise<T>)[]): Promise<T[][]> {
  const results: T[][] = runs.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < runs.length; k++) {
      const which = (round + k) % runs.length;
      (results[which] as T[]).push(await (runs[which] as () => Promise<T>)());
    }
  }
  return results;
}

export interface TargetSpec {
  readonly section: string;
  readonly target: string;
  readonly limit: string;
  readonly unit: string;
  /** The kept rounds' values (median and range are taken here); empty: not measured. */
  readonly values: readonly number[];
  readonly comparator?: string | null;
  readonly comparatorValues?: readonly number[];
  /** Judges the median (and the ratio, when there is a comparator). */
  readonly meets: (measured: number, ratio: number | null) => boolean;
  readonly note?: string;
}

/** A result line from kept rounds: median, range, comparator median and ratio, and the verdict. */
export function targetResult(spec: TargetSpec): ClientTargetResult {
  const measured = spec.values.length > 0 ? round3(median(spec.values)) : null;
  const comparatorMeasured =
    spec.comparatorValues !== undefined && spec.comparatorValues.length > 0
      ? round3(median(spec.comparatorValues))
      : null;
  const ratio =
    measured !== null && comparatorMeasured !== null && comparatorMeasured > 0
      ? round3(measured / comparatorMeasured)
      : null;
  const comparatorMissing = (spec.comparator ?? null) !== null && comparatorMeasured === null;
  const result: ClientTargetResult = {
    section: spec.section,
    target: spec.target,
    limit: spec.limit,
    measured,
    range: measured === null ? null : roundRange(range(spec.values)),
    unit: spec.unit,
    comparator: spec.comparator ?? null,
    comparatorMeasured,
    ratio,
    met: measured === null || comparatorMissing || !Number.isFinite(measured) ? null : spec.meets(measured, ratio),
  };
  return spec.note === undefined ? result : { ...result, note: spec.note };
}

/** A line for a target that could not be measured at all (a section failed, a tool is missing). */
export function unmeasured(
  section: string,
  target: string,
  limit: string,
  unit: string,
  note: string,
): ClientTargetResult {
  return targetResult({ section, target, limit, unit, values: [], meets: () => false, note });
}

export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function roundRange(values: [number, number] | null): [number, number] | null {
  return values === null ? null : [round3(values[0]), round3(values[1])];
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
