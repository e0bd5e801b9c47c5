/**
 * The shape of one line of `npm run bench client`: a target of the "never the bottleneck" issue, what was
 * measured (median over the kept rounds, with the range), the comparator measured in the same run and
 * the ratio to it, and whether the target is met. Every section of the client benchmark returns these.
 */

export interface ClientTargetResult {
  /** Which section measured it, e.g. "events", "plain-http", "open-loop", "streams", "accuracy". */
  readonly section: string;
  /** What is measured, e.g. "events absorbed, 1 event per read". */
  readonly target: string;
  /** The target as text, e.g. ">= 100000 /s" or "<= 2 us". */
  readonly limit: string;
  /** The median over kept rounds; null when it could not be measured (then `note` says why). */
  readonly measured: number | null;
  /** Smallest and largest kept round, or null for a single measurement. */
  readonly range: readonly [number, number] | null;
  readonly unit: string;
  /** The comparator's name, e.g. "sink", "autocannon", "wrk", "vllm request fn"; null when none. */
  readonly comparator: string | null;
  /** The comparator's median, same unit. */
  readonly comparatorMeasured: number | null;
  /** measured / comparatorMeasured, or null. */
  readonly ratio: number | null;
  /** Whether the target is met; null when it could not be judged (not measured, comparator missing). */
  readonly met: boolean | null;
  /** Why something is missing, or a caveat. */
  readonly note?: string;
}

export interface ClientSectionOptions {
  /** `--quick`: one short round of each, for the test suite (asserts a table, never timings). */
  readonly quick: boolean;
  /** Progress lines (stderr). */
  log(line: string): void;
}

/** One section of the client benchmark: its targets and the raw numbers behind them (for the JSON). */
export interface ClientSectionOutcome {
  readonly results: readonly ClientTargetResult[];
  readonly raw: unknown;
}
