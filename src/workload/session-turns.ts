/**
 * The later user turns of a dataset conversation, for sessions: the user turns that come after the ones a
 * single request already sends (its prompt), each with its token count, computed once when the workload is
 * built so a session's next turn never calls the tokenizer; with `output_tokens: dataset`, each turn's own answer length.
 */
import type { Tokenizer } from '../util/tokenizer.js';
import type { DatasetEntry } from './dataset/dataset-entry.js';
import { messageTokens } from './dataset/dataset-entry.js';
import { answersOfUserTurns, userTurns } from './dataset/dataset-turns.js';

/** A user message a session sends as one of its turns. */
export interface UserTurn {
  readonly text: string;
  /** Tokens of `text` in the workload's tokenizer. */
  readonly tokens: number;
  /**
   * With `output_tokens: dataset`: tokens of the conversation's own answer to this turn (its max_completion_tokens),
   * null when the file has none; absent otherwise.
   */
  readonly answerTokens?: number | null;
}

/**
 * The user turns of `entry`'s conversation after those of its prompt, in order; with `answers`, each with the
 * length of the file's assistant turn after it (as turn 1's comes from the entry's answer).
 */
export function laterUserTurns(
  entry: Pick<DatasetEntry, 'messages' | 'prompt'>,
  tokenizer: Tokenizer,
  answers = false,
): UserTurn[] {
  const sent = Math.max(1, entry.prompt.filter((message) => message.role === 'user').length);
  const replies = answers ? answersOfUserTurns(entry).slice(sent) : [];
  return userTurns(entry)
    .slice(sent)
    .map((text, i) => {
      const turn = { text, tokens: tokenizer.count(text) };
      if (!answers) return turn;
      const reply = replies[i] ?? null;
      return { ...turn, answerTokens: reply === null ? null : messageTokens(reply, tokenizer) };
    });
}
