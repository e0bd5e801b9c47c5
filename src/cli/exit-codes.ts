/** The one table of exit codes (DESIGN.md). */
import type { InferbenchErrorCode } from '../errors.js';

export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  runFailed: 3,
  thresholdFailed: 99,
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
