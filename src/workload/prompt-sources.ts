/**
 * Where prompt text comes from: synthetic token-exact text, or a JSONL dataset. A `kind` plus a factory
 * in a registry the compiler checks. Both put the scenario's shared prefix at the start of the first user
 * message and the profile's system prompt first, and both know each prompt's token count without calling
 * the tokenizer per request. Counts are in the tokenizer the workload is given: the profile's
 * target.tokenizer, loaded by the runner, or o200k_base.
 */
import type { ChatMessage } from '../protocol/chat.js';
import type { ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';
import type { Rng } from '../util/rng.js';
import { createRng } from '../util/rng.js';
import { o200kTokenizer } from '../util/tokenizer.js';
import type { EncodingTokenizer } from '../util/tokenizer.js';
import { generateTokenText, tokenVocabulary } from '../util/token-text.js';
import type { DatasetCounts } from './dataset/dataset-source.js';
import { createDatasetSource } from './dataset/dataset-source.js';
import { requestRng, streamSeed } from './request-seed.js';
import { sampleLength } from './sample-length.js';
import type { UserTurn } from './session-turns.js';
import type { SyntheticText } from './synthetic-text.js';
import { createSyntheticText, maxLength, notExact } from './synthetic-text.js';
import { createPrefixSet } from './prompt-prefixes.js';
import type { ChosenPrefix } from './prompt-prefixes.js';

export interface BuiltPrompt {
  readonly messages: ChatMessage[];
  readonly expectedInputTokens: number;
  /** `prompt.prefixes`: the prefix this prompt starts with (null: none); absent when the scenario has none. */
  readonly prefix?: ChosenPrefix | null;
  /** `prompt.dataset.output_tokens: dataset`: this entry's answer length, for max_completion_tokens. */
  readonly outputTokens?: number;
}

export interface PromptSource {
  /** The prompt of request `index`; `lengths` is the request's length stream (shared by every group). */
  build(index: number, lengths: Rng): BuiltPrompt;
  /** A dataset source: what it read, kept and dropped. */
  readonly dataset?: DatasetCounts;
  /** Warnings for summary.json harness.warnings, read when the run ends. */
  warnings?(): string[];
  /** A dataset source, for sessions: the later user turns of request `index`'s conversation (session-turns.ts). */
  laterTurns?(index: number): readonly UserTurn[];
}

export type PromptSourceKind = 'synthetic' | 'dataset';
type PromptSourceFactory = (
  scenario: ResolvedScenario,
  group: ResolvedGroup,
  tokenizer: EncodingTokenizer,
) => PromptSource;

/** The scenario's shared prefix: identical for every request and group of the scenario. */
function sharedPrefix(scenario: ResolvedScenario, named: EncodingTokenizer | null): string {
  const tokens = scenario.prompt.sharedPrefixTokens;
  return tokens > 0
    ? generateTokenText(
        createRng(streamSeed(scenario.seed, scenario.name, 'prefix')),
        tokens,
        true,
        tokenVocabulary(named ?? undefined),
      )
    : '';
}

function systemMessage(
  scenario: ResolvedScenario,
  tokenizer: EncodingTokenizer,
): { message: ChatMessage | null; tokens: number } {
  const system = scenario.prompt.system;
  return system === null
    ? { message: null, tokens: 0 }
    : { message: { role: 'system', content: system }, tokens: tokenizer.count(system) };
}

/** The profile's own tokenizer, or null for the default o200k (whose pieces need no check). */
function namedTokenizer(tokenizer: EncodingTokenizer): EncodingTokenizer | null {
  return tokenizer === o200kTokenizer() ? null : tokenizer;
}

/** Lengths a named tokenizer's texts are checked at, when the workload is built (beyond the pool check). */
const CHECKED_LENGTHS = [1, 2, 3, 4, 7, 64, 500];
/** The longest checked text (a longer distribution maximum is checked at this length). */
const MAX_CHECKED_LENGTH = 4096;

/**
 * Encodes a few whole user messages (prefix, opener or seeded words, window of the pool) of lengths up to
 * the longest the scenario asks for: the sum of pieces must be the tokenizer's count where it is used.
 */
function checkExact(
  named: EncodingTokenizer,
  prefix: string,
  prefixTokens: number,
  text: SyntheticText,
  seed: number,
  longest: number,
): void {
  if (prefixTokens > 0 && named.count(prefix) !== prefixTokens)
    throw notExact(named, `a shared prefix of ${prefixTokens} pieces encodes to ${named.count(prefix)} tokens`);
  const lengths = [...CHECKED_LENGTHS.filter((n) => n < longest), Math.min(longest, MAX_CHECKED_LENGTH)];
  lengths.forEach((count, i) => {
    const tokens = named.count(prefix + text.text(createRng(seed + i), count, prefix.length > 0)) - prefixTokens;
    if (tokens !== count) throw notExact(named, `a prompt of ${count} pieces encodes to ${tokens} tokens`);
  });
}

/**
 * Token-exact synthetic text. Lengths come from the per-request length stream, so every group of a
 * scenario asks for the same lengths; the text itself also depends on the group, so that groups sharing a
 * model never hit each other's prompt cache and skew a tier comparison.
 */
const synthetic: PromptSourceFactory = (scenario, group, tokenizer) => {
  const named = namedTokenizer(tokenizer);
  const prefix = sharedPrefix(scenario, named);
  const system = systemMessage(scenario, tokenizer);
  const fixedTokens = scenario.prompt.sharedPrefixTokens + system.tokens;
  // An effort seeds its own words too (only when set: the prompts of groups without one stay what they were).
  const effort = group.reasoningEffort ? [group.reasoningEffort] : [];
  const textBase = streamSeed(scenario.seed, scenario.name, group.model ?? '*', group.tier ?? '-', ...effort, 'text');
  const inputTokens = scenario.prompt.inputTokens;
  const text = createSyntheticText(textBase, maxLength(inputTokens), named);
  if (named !== null)
    checkExact(named, prefix, scenario.prompt.sharedPrefixTokens, text, textBase, maxLength(inputTokens));
  const afterPrefix = prefix.length > 0;
  // prompt.prefixes (prompt-prefixes.ts): one of N prefixes per request, in place of the shared prefix.
  const prefixes = createPrefixSet(scenario, group, named);
  const firstPrefix = prefixes?.prefixes[0];
  if (named !== null && firstPrefix !== undefined)
    checkExact(named, firstPrefix.text, firstPrefix.tokens, text, textBase, maxLength(inputTokens));
  return {
    build(index, lengths) {
      const count = sampleLength(inputTokens, lengths);
      const chosen = prefixes === null ? null : prefixes.choose(index);
      const head = chosen === null ? prefix : chosen.text;
      const user: ChatMessage = {
        role: 'user',
        content: head + text.text(requestRng(textBase, index), count, chosen === null ? afterPrefix : true),
      };
      const messages = system.message ? [system.message, user] : [user];
      const expectedInputTokens = fixedTokens + count + (chosen === null ? 0 : chosen.tokens);
      return prefixes === null ? { messages, expectedInputTokens } : { messages, expectedInputTokens, prefix: chosen };
    },
  };
};

/** Prompts from a dataset file (dataset-source.ts): filtered, then sampled in a seeded order. */
const dataset: PromptSourceFactory = (scenario, _group, tokenizer) => {
  // The prefixed message is counted whole, so its tokens are exact whatever the tokenizer does at the seam.
  const prefix = sharedPrefix(scenario, namedTokenizer(tokenizer));
  const source = createDatasetSource(scenario, tokenizer, { prefix, system: systemMessage(scenario, tokenizer) });
  return {
    build: (index) => source.build(index),
    dataset: source.counts,
    warnings: () => source.warnings(),
    laterTurns: (index) => source.laterTurns(index),
  };
};

export const PROMPT_SOURCES = { synthetic, dataset } as const satisfies Record<PromptSourceKind, PromptSourceFactory>;

export function promptSourceKind(scenario: ResolvedScenario): PromptSourceKind {
  return scenario.prompt.dataset ? 'dataset' : 'synthetic';
}
