/**
 * summary.json `groups[].checks`: the answer checks (measure/answer-checks.ts) of a group's ok requests,
 * counted per check name, with a few sample messages of failures. Present only when some request was
 * checked; counts add exactly when shards merge.
 */

/** The answer checks, by the name summary.json counts them under; declared once here. */
export const ANSWER_CHECK_NAMES = ['tool_arguments', 'json_schema'] as const;
export type AnswerCheckName = (typeof ANSWER_CHECK_NAMES)[number];

/** Sample failure messages kept per check. */
export const CHECK_SAMPLES = 3;

/** One check of a group. */
export interface CheckStats {
  passed: number;
  failed: number;
  /** passed / (passed + failed). */
  pass_rate: number;
  /** Up to CHECK_SAMPLES distinct failure messages, in the order they were first seen. */
  samples: string[];
}

export type GroupChecks = Partial<Record<AnswerCheckName, CheckStats>>;

/** passed / (passed + failed), rounded to 6 decimals (0 when nothing was checked). */
export function passRate(passed: number, failed: number): number {
  const total = passed + failed;
  return total > 0 ? Math.round((passed / total) * 1e6) / 1e6 : 0;
}
