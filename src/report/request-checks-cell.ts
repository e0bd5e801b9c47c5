/**
 * The `checks_failed` column of requests.csv: the names of a request's answer checks that failed
 * (RequestRecord.checks, measure/answer-checks.ts), `;`-separated; empty when every check passed or none
 * applied. The column exists only in runs whose profile asks for checkable answers (tools or a JSON
 * response_format), so the files of other runs keep their columns.
 */
import type { AnswerCheck } from '../client/request-record.js';

export const CHECKS_COLUMN = 'checks_failed';

/** `tool_arguments;json_schema` for the failed ones; '' otherwise. */
export function checksCell(checks: readonly AnswerCheck[] | null): string {
  if (checks === null) return '';
  let out = '';
  for (const check of checks) {
    if (check.passed) continue;
    out = out === '' ? check.name : `${out};${check.name}`;
  }
  return out;
}
