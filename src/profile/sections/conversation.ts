/**
 * The `session:` and `tool_loop:` keys of a scenario: multi-request conversations. A session is several
 * user turns, each sent with the conversation so far (the server's real answers included) after a think
 * time; a tool loop answers the model's tool calls with synthetic tool results and asks again. Their
 * schema, the rules a per-field schema cannot express, their resolution (durations in ms, defaults
 * applied; only present keys resolve, so scenarios without them resolve and are recorded in summary.json
 * as before) and their `validate` lines.
 */
import { z } from 'zod';
import { formatDurationMs, parseDurationMs } from '../../util/duration.js';
import { type DurationInput, duration, formatLength, lengthDistribution, resolveLength } from '../field-kinds.js';
import type { IssuePath, ProfileIssue } from '../profile-issue.js';
import type {
  LengthDistribution,
  ResolvedScenario,
  SessionSpec,
  ThinkTimeDistribution,
  ToolLoopSpec,
} from '../resolved-profile.js';

const THINK_TIME_MESSAGE =
  'expected a duration ("2s") or { dist: fixed, value } | { dist: uniform, min, max } | { dist: exponential, mean, max? } | { dist: lognormal, mean, stddev, max? } with durations';

/** A think time: a duration (fixed) or a seeded distribution of durations. */
const thinkTime = z
  .union(
    [
      duration,
      z.discriminatedUnion('dist', [
        z.strictObject({ dist: z.literal('fixed'), value: duration }),
        z.strictObject({ dist: z.literal('uniform'), min: duration, max: duration }),
        z.strictObject({ dist: z.literal('exponential'), mean: duration, max: duration.optional() }),
        z.strictObject({
          dist: z.literal('lognormal'),
          mean: duration,
          stddev: duration,
          max: duration.optional(),
        }),
      ]),
    ],
    { error: THINK_TIME_MESSAGE },
  )
  .meta({
    id: 'thinkTime',
    description:
      'Wait between a session\'s answer and its next user turn: a duration ("2s") or { dist: fixed, value } | { dist: uniform, min, max } | { dist: exponential, mean, max? } | { dist: lognormal, mean, stddev, max? } (durations; max defaults to mean + 5 stddevs, or 10 x mean for exponential).',
  });

/** `session:` of a scenario. */
export const sessionSchema = z
  .strictObject({
    turns: lengthDistribution.optional().meta({
      description:
        "User turns per session: a number or a distribution (as input_tokens). With prompt.dataset, at most the conversation's own user turns; omitted: all of them.",
    }),
    think_time: thinkTime.optional(),
    user_tokens: lengthDistribution.optional().meta({
      description: 'Tokens of each later user message (turn 2 on); default prompt.input_tokens.',
    }),
  })
  .meta({
    id: 'session',
    description:
      "Multi-turn sessions: one arrival (or closed-loop user) runs one session of `turns` requests, each sending the conversation so far with the server's real answers; `requests` and max_concurrency count sessions.",
  });

/** `tool_loop:` of a scenario. */
export const toolLoopSchema = z
  .strictObject({
    max_rounds: z
      .number()
      .int()
      .min(1)
      .max(32)
      .optional()
      .meta({ description: 'Follow-up requests carrying tool results per user turn (default 3).' }),
    result_tokens: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'Tokens of each synthetic tool result (default 32).' }),
  })
  .meta({
    id: 'toolLoop',
    description:
      'When an answer calls tools, send it back with one synthetic tool result per call and ask again, up to max_rounds times (needs request.tools).',
  });

export type SessionInput = z.infer<typeof sessionSchema>;
export type ToolLoopInput = z.infer<typeof toolLoopSchema>;

// ---- checks

/*
 * The rules a per-field schema cannot express: min <= max in their distributions, a tool loop needs tools to
 * be offered (a model only calls tools it is given), and neither runs in a sweep (its rates are completed
 * requests per second, while an arrival starts a whole conversation of several requests). Run on the
 * merged, unvalidated scenario like the other cross-field checks.
 */

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

// ---- resolution

export const SESSION_DEFAULTS = {
  toolLoopMaxRounds: 3,
  toolLoopResultTokens: 32,
  /** A lognormal think time without max is clamped to mean + this many stddevs. */
  thinkMaxStddevs: 5,
  /** An exponential think time without max is clamped to this many means. */
  thinkMaxMeans: 10,
} as const;

const ms = (value: DurationInput): number => parseDurationMs(value) as number;

function resolveThinkTime(input: SessionInput['think_time']): ThinkTimeDistribution {
  if (input === undefined) return { dist: 'fixed', valueMs: 0 };
  if (typeof input === 'string' || typeof input === 'number') return { dist: 'fixed', valueMs: ms(input) };
  switch (input.dist) {
    case 'fixed':
      return { dist: 'fixed', valueMs: ms(input.value) };
    case 'uniform':
      return { dist: 'uniform', minMs: ms(input.min), maxMs: ms(input.max) };
    case 'exponential': {
      const meanMs = ms(input.mean);
      const maxMs = input.max === undefined ? meanMs * SESSION_DEFAULTS.thinkMaxMeans : ms(input.max);
      return { dist: 'exponential', meanMs, maxMs };
    }
    default: {
      const meanMs = ms(input.mean);
      const stddevMs = ms(input.stddev);
      const maxMs = input.max === undefined ? meanMs + SESSION_DEFAULTS.thinkMaxStddevs * stddevMs : ms(input.max);
      return { dist: 'lognormal', meanMs, stddevMs, maxMs };
    }
  }
}

/** The scenario's `session` and `toolLoop` fields, each only when the profile sets it. */
export function resolveConversation(
  f: { readonly session?: SessionInput; readonly tool_loop?: ToolLoopInput },
  inputTokens: LengthDistribution,
): { session?: SessionSpec; toolLoop?: ToolLoopSpec } {
  const out: { session?: SessionSpec; toolLoop?: ToolLoopSpec } = {};
  const session = f.session;
  if (session !== undefined) {
    out.session = {
      turns: session.turns === undefined ? null : resolveLength(session.turns),
      thinkTime: resolveThinkTime(session.think_time),
      userTokens: session.user_tokens === undefined ? inputTokens : resolveLength(session.user_tokens),
    };
  }
  if (f.tool_loop !== undefined) {
    out.toolLoop = {
      maxRounds: f.tool_loop.max_rounds ?? SESSION_DEFAULTS.toolLoopMaxRounds,
      resultTokens: f.tool_loop.result_tokens ?? SESSION_DEFAULTS.toolLoopResultTokens,
    };
  }
  return out;
}

// ---- validate

const LABEL_WIDTH = 11;
const row = (label: string, value: string): string => `  ${label.padEnd(LABEL_WIDTH)}${value}\n`;

function formatThinkTime(t: ThinkTimeDistribution): string {
  const d = formatDurationMs;
  switch (t.dist) {
    case 'fixed':
      return d(t.valueMs);
    case 'uniform':
      return `uniform ${d(t.minMs)}..${d(t.maxMs)}`;
    case 'exponential':
      return `exponential, mean ${d(t.meanMs)}, max ${d(t.maxMs)}`;
    case 'lognormal':
      return `lognormal, mean ${d(t.meanMs)}, stddev ${d(t.stddevMs)}, max ${d(t.maxMs)}`;
  }
}

/** A count drawn like a token length ("3", "uniform 2..5", "normal mean 4 ..."). */
function formatCount(length: LengthDistribution): string {
  switch (length.dist) {
    case 'fixed':
      return String(length.value);
    case 'uniform':
      return `uniform ${length.min}..${length.max}`;
    default:
      return `${length.dist} mean ${length.mean}, stddev ${length.stddev}, ${length.min}..${length.max}`;
  }
}

/** The `validate` lines of a scenario's `session` and `tool_loop`, and what `requests` and max_concurrency count then; empty without either. */
export function formatConversation(s: ResolvedScenario): string {
  let out = '';
  const session = s.session;
  if (session !== undefined) {
    const turns = session.turns === null ? "the dataset conversation's user" : formatCount(session.turns);
    const later = s.prompt.dataset
      ? "the conversation's next user turn"
      : `user turns of ${formatLength(session.userTokens)}`;
    out += row('session', `${turns} turns, think time ${formatThinkTime(session.thinkTime)}, then ${later}`);
    out += row('', 'requests and max_concurrency count sessions; one prompt_cache_key per session');
  }
  if (s.toolLoop !== undefined)
    out += row(
      'tool loop',
      `up to ${s.toolLoop.maxRounds} rounds of tool results of ${s.toolLoop.resultTokens} tokens per call`,
    );
  return out;
}
