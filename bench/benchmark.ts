/**
 * What a benchmark is to `npm run bench`: a name, a one-line description and a run function returning
 * a table for the terminal and a JSON document for bench-results/<name>.json. Benchmarks measure
 * precisely what timed tests may only check loosely; they may take tens of seconds.
 */

/** One table row: column name -> printed value. */
export type BenchRow = Readonly<Record<string, string | number>>;

export interface BenchOutcome {
  /** Rows printed as an aligned table. */
  readonly rows: readonly BenchRow[];
  /** Written as JSON (numbers in full precision, settings, machine facts). */
  readonly json: unknown;
  /** Lines printed under the table (e.g. whether a target was met). */
  readonly notes?: readonly string[];
}

export interface BenchContext {
  /** Progress lines (stderr). */
  log(line: string): void;
  /** `--quick`: a short version of the benchmark (for the test suite); benchmarks without one ignore it. */
  readonly quick?: boolean;
  /** `--skip a,b`: parts of a benchmark to leave out (names are the benchmark's own). */
  readonly skip?: readonly string[];
  /** `--duration 1h`: how long a benchmark that runs for a time runs (a duration text; others ignore it). */
  readonly duration?: string;
}

export interface Benchmark {
  readonly description: string;
  run(ctx: BenchContext): Promise<BenchOutcome>;
}

/** Formats rows as an aligned text table. */
export function formatTable(rows: readonly BenchRow[]): string {
  if (rows.length === 0) return '(no rows)';
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (value: string | number | undefined): string =>
    value === undefined
      ? ''
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? String(value)
          : value.toFixed(3)
        : value;
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]): string => values.map((v, i) => v.padStart(widths[i] as number)).join('  ');
  return [
    line(columns),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(columns.map((c) => cell(r[c])))),
  ].join('\n');
}
