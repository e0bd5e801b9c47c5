/**
 * summary.json `groups[].checks`: the answer checks (measure/answer-checks.ts) of a group's ok requests,
 * counted per check name, with a few sample messages of failures. Present only when some request was
 * checked; counts add exactly when shards merge. CheckStats is declared with summary.json's schema
 * (run-summary.ts), which worker threads do not load.
 */
import type { CheckStats } from './run-summary.js';

export type { CheckStats } from './run-summary.js';

/** The answer checks, by the name summary.json counts them under; declared once here. */
export const ANSWER_CHECK_NAMES = ['tool_arguments', 'json_schema'] as const;
export type AnswerCheckName = (typeof ANSWER_CHECK_NAMES)[number];

/** Sample failure messages kept per check. */
export const CHECK_SAMPLES = 3;

export type GroupChecks = Partial<Record<AnswerCheckName, CheckStats>>;

/** passed / (passed + failed), rounded to 6 decimals (0 when nothing was checked). */
export function passRate(passed: number, failed: number): number {
  const total = passed + failed;
  return total > 0 ? Math.round((passed / total) * 1e6) / 1e6 : 0;
}
