/**
 * Filters a dataset's entries by token length (the prompt as sent; the answer when output tokens come from
 * the dataset) and by what a request needs (a user turn, an answer), up to the first `limit` kept. Every
 * entry dropped is counted under the first rule it failed, so `validate` and errors can say why.
 */
import type { DatasetSpec } from '../../profile/resolved-profile.js';

export const FILTER_RULES = [
  'no_user_turn',
  'no_answer',
  'min_input_tokens',
  'max_input_tokens',
  'min_output_tokens',
  'max_output_tokens',
] as const;
export type FilterRule = (typeof FILTER_RULES)[number];

/** What a filter needs of an entry: its prompt as sent, that prompt's tokens, and its answer's tokens. */
export interface FilterableEntry {
  readonly prompt: readonly unknown[];
  readonly tokens: number;
  readonly answerTokens: number | null;
}

export interface FilterCounts {
  /** Entries in the file. */
  readonly read: number;
  /** Entries dropped, by the first rule each failed (every rule present, 0 when none). */
  readonly filtered: Readonly<Record<FilterRule, number>>;
  /** Entries after the one that reached prompt.dataset.limit: not examined (0 without a limit). */
  readonly limited: number;
  /** Entries requests are drawn from. */
  readonly kept: number;
}

export type FilterSpec = Pick<
  DatasetSpec,
  'outputTokens' | 'minInputTokens' | 'maxInputTokens' | 'minOutputTokens' | 'maxOutputTokens' | 'limit'
>;

/** The first rule `entry` fails, or null when it is kept. */
function failedRule(entry: FilterableEntry, spec: FilterSpec): FilterRule | null {
  if (entry.prompt.length === 0) return 'no_user_turn';
  const fromDataset = spec.outputTokens === 'dataset';
  // An empty answer cannot set max_completion_tokens (at least 1).
  if (fromDataset && (entry.answerTokens === null || entry.answerTokens < 1)) return 'no_answer';
  if (spec.minInputTokens !== null && entry.tokens < spec.minInputTokens) return 'min_input_tokens';
  if (spec.maxInputTokens !== null && entry.tokens > spec.maxInputTokens) return 'max_input_tokens';
  if (fromDataset) {
    const answer = entry.answerTokens as number;
    if (spec.minOutputTokens !== null && answer < spec.minOutputTokens) return 'min_output_tokens';
    if (spec.maxOutputTokens !== null && answer > spec.maxOutputTokens) return 'max_output_tokens';
  }
  return null;
}

/**
 * The entries kept, in file order, each made by `prepare` (the prompt as sent), and the counts of what was
 * dropped. With a limit it stops at the limit-th entry kept: the rest of the file is neither prepared nor
 * token-counted (a large file with a small limit loads fast), and counts as `limited`.
 */
export function filterEntries<S, T extends FilterableEntry>(
  entries: readonly S[],
  prepare: (entry: S) => T,
  spec: FilterSpec,
): { kept: T[]; counts: FilterCounts } {
  const filtered = Object.fromEntries(FILTER_RULES.map((rule) => [rule, 0])) as Record<FilterRule, number>;
  const kept: T[] = [];
  let examined = 0;
  for (const entry of entries) {
    if (spec.limit !== null && kept.length >= spec.limit) break;
    examined++;
    const prepared = prepare(entry);
    const rule = failedRule(prepared, spec);
    if (rule === null) kept.push(prepared);
    else filtered[rule]++;
  }
  return { kept, counts: { read: entries.length, filtered, limited: entries.length - examined, kept: kept.length } };
}

/** "12 by max_input_tokens (> 300), 3 with no user turn": the non-zero filter counts, for people. */
export function describeFiltered(counts: FilterCounts, spec: FilterSpec): string {
  const bound: Record<FilterRule, string> = {
    no_user_turn: 'with no user turn',
    no_answer: 'with no answer (output_tokens: dataset)',
    min_input_tokens: `by min_input_tokens (< ${spec.minInputTokens})`,
    max_input_tokens: `by max_input_tokens (> ${spec.maxInputTokens})`,
    min_output_tokens: `by min_output_tokens (< ${spec.minOutputTokens})`,
    max_output_tokens: `by max_output_tokens (> ${spec.maxOutputTokens})`,
  };
  const parts = FILTER_RULES.filter((rule) => counts.filtered[rule] > 0).map(
    (rule) => `${counts.filtered[rule]} ${bound[rule]}`,
  );
  if (counts.limited > 0) parts.push(`${counts.limited} not examined (limit ${spec.limit} reached)`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}
