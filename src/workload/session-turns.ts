/**
 * The later user turns of a dataset conversation, for sessions: the user turns that come after the ones a
 * single request already sends (its prompt), each with its token count, computed once when the workload is
 * built so a session's next turn never calls the tokenizer.
 */
import type { Tokenizer } from '../util/tokenizer.js';
import type { DatasetEntry } from './dataset-entry.js';
import { userTurns } from './dataset-turns.js';

/** A user message a session sends as one of its turns. */
export interface UserTurn {
  readonly text: string;
  /** Tokens of `text` in the workload's tokenizer. */
  readonly tokens: number;
}

/** The user turns of `entry`'s conversation after those of its prompt, in order. */
export function laterUserTurns(entry: Pick<DatasetEntry, 'messages' | 'prompt'>, tokenizer: Tokenizer): UserTurn[] {
  const sent = entry.prompt.filter((message) => message.role === 'user').length;
  return userTurns(entry)
    .slice(Math.max(1, sent))
    .map((text) => ({ text, tokens: tokenizer.count(text) }));
}
