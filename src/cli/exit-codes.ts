/** The one table of exit codes (DESIGN.md). */
import type { InferbenchErrorCode } from '../errors.js';

export const EXIT = {
  ok: 0,
  internal: 1,
  /** Bad usage, profile, config or results folder. */
  usage: 2,
  /** Target unreachable, every request failed, or stopped early by a scenario's max_error_rate. */
  runFailed: 3,
  /**
   * `--max-cost`: the estimated spend exceeded it (refused, nothing sent) or the spend reached it (stopped
   * early, results so far written).
   */
  budget: 4,
  /**
   * The run is not valid evidence (the harness was its own bottleneck, or dropped arrivals at its own cap)
   * and `--fail-on invalid` or the profile's `fail_on_invalid` asked for that to fail; `compare` refusing
   * to call a regression from such a candidate.
   */
  invalid: 5,
  /** A threshold (also one that stopped the run with abort_on_fail), SLO minimum or comparison failed. */
  thresholdFailed: 99,
  /** Ctrl-C (results so far written). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_BY_ERROR = {
  BAD_USAGE: EXIT.usage,
  BAD_PROFILE: EXIT.usage,
  BAD_CONFIG: EXIT.usage,
  BAD_RESULTS: EXIT.usage,
  TARGET_UNREACHABLE: EXIT.runFailed,
  TARGET_ERROR: EXIT.runFailed,
  RUN_FAILED: EXIT.runFailed,
  THRESHOLD_FAILED: EXIT.thresholdFailed,
  INTERRUPTED: EXIT.interrupted,
  INTERNAL: EXIT.internal,
} as const satisfies Record<InferbenchErrorCode, ExitCode>;
