/**
 * The live dashboard's history: one point per progress tick in named columns (uPlot's layout: one array
 * per column), bounded. When a push makes it longer than `maxPoints`, every other point is dropped (the
 * newest always kept), so memory stays bounded however long the run: the recent past stays at one point a
 * second and older stretches get coarser. The page (live-page-script.ts) thins its copy the same way, so
 * a page opened late and one opened at the start show the same history.
 */

/** A value of a point: null where there is nothing to show (no TTFT in a window with no ok request). */
export type LiveValue = number | null;

/** The history as it is sent: column names and one array of values per column, all of one length. */
export interface LiveSeriesData {
  readonly columns: readonly string[];
  readonly data: readonly (readonly LiveValue[])[];
}

/** Bounded columns of points (see the file's comment). */
export class LiveSeries {
  readonly columns: readonly string[];
  readonly maxPoints: number;
  readonly #data: LiveValue[][];

  constructor(columns: readonly string[], maxPoints: number) {
    if (!Number.isInteger(maxPoints) || maxPoints < 2) throw new RangeError(`maxPoints ${maxPoints} must be >= 2`);
    this.columns = columns;
    this.maxPoints = maxPoints;
    this.#data = columns.map(() => []);
  }

  get length(): number {
    return this.#data[0]?.length ?? 0;
  }

  /** Appends one point (one value per column, in column order), thinning when it grows past maxPoints. */
  push(point: readonly LiveValue[]): void {
    if (point.length !== this.columns.length)
      throw new RangeError(`a point has ${point.length} values for ${this.columns.length} columns`);
    for (let i = 0; i < point.length; i++) (this.#data[i] as LiveValue[]).push(point[i] as LiveValue);
    if (this.length > this.maxPoints) for (const column of this.#data) thinByHalf(column);
  }

  /** The columns as they stand (the arrays themselves: serialise them at once, do not keep them). */
  data(): LiveSeriesData {
    return { columns: this.columns, data: this.#data };
  }
}

/** Keeps every other value counting back from the last, in place. */
export function thinByHalf(values: LiveValue[]): void {
  let kept = 0;
  for (let i = (values.length - 1) % 2; i < values.length; i += 2) values[kept++] = values[i] as LiveValue;
  values.length = kept;
}
