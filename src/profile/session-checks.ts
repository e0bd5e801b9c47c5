/**
 * The rules of `session:` and `tool_loop:` a per-field schema cannot express: min <= max in their
 * distributions, a tool loop needs tools to be offered (a model only calls tools it is given), and neither
 * runs in a sweep (its rates are completed requests per second, while an arrival starts a whole
 * conversation of several requests). Runs on the merged, unvalidated scenario like the other cross-field checks.
 */
import { parseDurationMs } from '../util/duration.js';
import type { IssuePath, ProfileIssue } from './profile-issue.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `{ min, max }` pair of numbers (or durations, with `parse`) whose min is above its max. */
function minAboveMax(value: unknown, parse: (v: unknown) => number | undefined): { min: unknown; max: unknown } | null {
  if (!isRecord(value) || value.min === undefined || value.max === undefined) return null;
  const min = parse(value.min);
  const max = parse(value.max);
  return min !== undefined && max !== undefined && min > max ? { min: value.min, max: value.max } : null;
}

const asNumber = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const asDuration = (v: unknown): number | undefined =>
  typeof v === 'string' || typeof v === 'number' ? parseDurationMs(v) : undefined;

/** `session`, `tool_loop` and `request` as merged for one scenario; `pathOf` gives a field's path as written. */
export function checkConversation(
  fields: Readonly<Record<string, unknown>>,
  pathOf: (key: string, ...rest: string[]) => IssuePath,
): ProfileIssue[] {
  const issues: ProfileIssue[] = [];
  issues.push(...checkNotInSweep(fields, pathOf));
  const session = fields.session;
  if (isRecord(session)) {
    const prompt = isRecord(fields.prompt) ? fields.prompt : {};
    if (session.turns === undefined && prompt.dataset === undefined)
      issues.push({
        path: pathOf('session'),
        message: 'needs turns (a number or a distribution), unless prompt.dataset brings conversations with theirs',
      });
    for (const [key, parse] of [
      ['turns', asNumber],
      ['user_tokens', asNumber],
      ['think_time', asDuration],
    ] as const) {
      const bad = minAboveMax(session[key], parse);
      if (bad !== null)
        issues.push({
          path: pathOf('session', key),
          message: `min (${String(bad.min)}) is greater than max (${String(bad.max)})`,
        });
    }
  }
  if (isRecord(fields.tool_loop)) {
    const request = isRecord(fields.request) ? fields.request : {};
    if (!Array.isArray(request.tools) || request.tools.length === 0)
      issues.push({
        path: pathOf('tool_loop'),
        atKey: true,
        message: 'needs request.tools: a model only calls the tools a request offers',
      });
  }
  return issues;
}

/**
 * A sweep's rate phases run at rates measured in completed requests per second (runner/sweep-rates.ts),
 * but with `session` or `tool_loop` one arrival is a whole conversation: the phases would send several
 * times the load they name.
 */
function checkNotInSweep(
  fields: Readonly<Record<string, unknown>>,
  pathOf: (key: string, ...rest: string[]) => IssuePath,
): ProfileIssue[] {
  if (!isRecord(fields.load) || fields.load.mode !== 'sweep') return [];
  return (['session', 'tool_loop'] as const)
    .filter((key) => fields[key] !== undefined)
    .map((key) => ({
      path: pathOf(key),
      atKey: true,
      message: `a sweep cannot run ${key === 'session' ? 'sessions' : 'a tool loop'}: its rates are requests per second, but each arrival starts a whole conversation of several requests; sweep the scenario without ${key}, or run the conversations at given loads`,
    }));
}
