/**
 * A results file (summary.json, capacity-steps.json) checked whole against its zod schema when it is read
 * back: every wrong value is a BAD_RESULTS naming the file and the value's JSON path, with what was found
 * (`groups[0].metrics.ttft_ms.p50: expected number, got string`). Runs once per file, never per request.
 */
import type { z } from 'zod';
import { InferbenchError } from '../errors.js';

export interface ResultsFileCheck {
  readonly path: string;
  /** What the file must be, for the message: `an inferbench summary.json`. */
  readonly what: string;
  readonly hint: string;
}

/** `value` as `schema` reads it, or a BAD_RESULTS listing its wrong values. */
export function checkResultsFile<S extends z.ZodType>(schema: S, value: unknown, check: ResultsFileCheck): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${check.path}: ${describeIssue(issue, value)}`);
  const shownProblems = problems.slice(0, MAX_PROBLEMS);
  if (problems.length > shownProblems.length)
    shownProblems.push(`... and ${problems.length - shownProblems.length} more`);
  throw new InferbenchError(
    'BAD_RESULTS',
    `${check.path} is not ${check.what} (${plural(problems.length, 'wrong value')}):\n  ${shownProblems.join('\n  ')}`,
    { hint: check.hint },
  );
}

/** Problems listed in a message at most; a file with more is named with its count. */
const MAX_PROBLEMS = 12;

/** `groups[0].metrics.ttft_ms.p50: expected number, got string`. */
function describeIssue(issue: z.core.$ZodIssue, document: unknown): string {
  const at = formatJsonPath(issue.path);
  const value = valueAt(document, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return `${at}: expected ${issue.expected}, got ${kindOf(value)}`;
    case 'unrecognized_keys':
      return `${at}: unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_union':
      // A discriminated union names the kinds it expects; other unions (a price) are told by their forms.
      return `${at}: ${'discriminator' in issue ? issue.message : 'matches none of its forms'}, got ${shown(value)}`;
    default:
      return `${at}: ${issue.message.replace(/^Invalid (?:input|option): /, '')}, got ${shown(value)}`;
  }
}

function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment))
      out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out === '' ? '(the document)' : out;
}

function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let at = document;
  for (const segment of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[segment];
  }
  return at;
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** A value as a message shows it: scalars as JSON (long strings cut), objects and arrays by kind. */
function shown(value: unknown): string {
  if (value === undefined || (typeof value === 'object' && value !== null)) return kindOf(value);
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}..."` : text;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
