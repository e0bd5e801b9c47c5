/**
 * The `validate` lines of a scenario's conversations: its `session` (turns, think time, later user turns)
 * and `tool_loop`, and what `requests` and max_concurrency count then. Empty without either.
 */
import { formatDurationMs } from '../util/duration.js';
import type { LengthDistribution, ResolvedScenario, ThinkTimeDistribution } from './resolved-profile.js';

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

/** `formatLength` describes a token length (format-plan.ts's). */
export function formatConversation(s: ResolvedScenario, formatLength: (length: LengthDistribution) => string): string {
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
