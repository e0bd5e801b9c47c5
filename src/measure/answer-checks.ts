/**
 * The answer checks of one finished request, against what its body asked for (answer-validators.ts):
 *
 * - `tool_arguments`: every tool call names a tool of the request, and its arguments parse as JSON and
 *   validate against that tool's `parameters` (one result per request: the first call that fails says why);
 * - `json_schema`: with `response_format` `json_schema`, the answer content parses and validates against
 *   the schema; with `json_object`, it parses to an object.
 *
 * A failed check is not an HTTP error: the request stays ok. Failed requests get no checks (there is no
 * whole answer), nor do answers with nothing to check (no tool call; tool calls instead of JSON content).
 * An answer cut off by `finish_reason: length` usually fails for that reason, and its message says so.
 */
import type { AnswerCheck, ReceivedToolCall, RequestRecord } from '../client/request-record.js';
import type { AnswerExpectation, ValueCheck } from './answer-validators.js';

/** Longest message kept (they go into summary.json samples and requests.csv). */
const MAX_MESSAGE_CHARS = 160;
const CUT_OFF = 'answer cut off (finish_reason length): ';

function shorten(message: string): string {
  return message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS - 3)}...` : message;
}

/** The parsed JSON of `text`, or the parse error's reason. */
function parseJson(text: string): { value: unknown; error: string | null } {
  try {
    return { value: JSON.parse(text), error: null };
  } catch (error) {
    return { value: undefined, error: `not JSON (${(error as Error).message})` };
  }
}

/** Why `call` fails, or null when it passes. */
function toolCallProblem(call: ReceivedToolCall, tools: ReadonlyMap<string, ValueCheck>): string | null {
  const check = tools.get(call.name);
  if (check === undefined) return `unknown tool ${JSON.stringify(call.name)}`;
  const parsed = parseJson(call.arguments);
  const problem = parsed.error ?? check(parsed.value);
  return problem === null ? null : `${call.name}: arguments ${problem}`;
}

function result(name: AnswerCheck['name'], problem: string | null, cutOff: boolean): AnswerCheck {
  if (problem === null) return { name, passed: true, message: null };
  return { name, passed: false, message: shorten(cutOff ? CUT_OFF + problem : problem) };
}

/** The checks of `record` (an ok request's, with its texts still held); null when none apply. */
export function answerChecks(record: RequestRecord, expectation: AnswerExpectation): AnswerCheck[] | null {
  if (record.errorClass !== null) return null;
  const cutOff = record.finishReason === 'length';
  const checks: AnswerCheck[] = [];
  const calls = record.toolCalls;
  if (expectation.tools !== null && calls !== null && calls.length > 0) {
    let problem: string | null = null;
    for (let i = 0; i < calls.length && problem === null; i += 1) {
      problem = toolCallProblem(calls[i] as ReceivedToolCall, expectation.tools);
    }
    checks.push(result('tool_arguments', problem, cutOff));
  } else if (expectation.tools === null && calls !== null && calls.length > 0) {
    // Tool calls to a request that declared no tools: every one names an unknown tool.
    checks.push(result('tool_arguments', `unknown tool ${JSON.stringify(calls[0]?.name ?? '')}`, cutOff));
  }
  const format = expectation.format;
  if (format !== null && (calls === null || calls.length === 0)) {
    const parsed =
      record.content.length === 0 ? { value: undefined, error: 'empty answer' } : parseJson(record.content);
    const problem = parsed.error ?? format.check(parsed.value);
    checks.push(result('json_schema', problem === null ? null : `content ${problem}`, cutOff));
  }
  return checks.length > 0 ? checks : null;
}
