/**
 * `session:` and `tool_loop:` as written -> their resolved specs (durations in ms, defaults applied). Only
 * present keys resolve, so scenarios without them resolve (and are recorded in summary.json) as before.
 * Token lengths resolve with resolve-profile.ts's own function, passed in (no import cycle).
 */
import { parseDurationMs } from '../util/duration.js';
import type { DurationInput, LengthInput, ScenarioFieldsInput, SessionInput } from './profile-schema.js';
import type { LengthDistribution, SessionSpec, ThinkTimeDistribution, ToolLoopSpec } from './resolved-profile.js';

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
  f: ScenarioFieldsInput,
  inputTokens: LengthDistribution,
  resolveLength: (length: LengthInput) => LengthDistribution,
): { session?: SessionSpec; toolLoop?: ToolLoopSpec } {
  const out: { session?: SessionSpec; toolLoop?: ToolLoopSpec } = {};
  const session = f.session;
  if (session !== undefined) {
    out.session = {
      turns: session.turns === undefined ? null : resolveLength(session.turns as LengthInput),
      thinkTime: resolveThinkTime(session.think_time),
      userTokens: session.user_tokens === undefined ? inputTokens : resolveLength(session.user_tokens as LengthInput),
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
