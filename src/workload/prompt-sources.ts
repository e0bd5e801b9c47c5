/**
 * Where prompt text comes from: synthetic token-exact text, or a JSONL dataset. A `kind` plus a factory
 * in a registry the compiler checks. Both put the scenario's shared prefix at the start of the first user
 * message and the profile's system prompt first, and both know each prompt's token count without calling
 * the tokenizer per request.
 */
import type { ChatMessage } from '../protocol/chat.js';
import type { ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';
import type { Rng } from '../util/rng.js';
import { createRng } from '../util/rng.js';
import { countTokens } from '../util/tokenizer.js';
import { generateTokenText } from '../util/token-text.js';
import { loadDataset, messageTokens } from './dataset.js';
import { requestRng, streamSeed } from './request-seed.js';
import { sampleLength } from './sample-length.js';
import { createSyntheticText, maxLength } from './synthetic-text.js';

export interface BuiltPrompt {
  readonly messages: ChatMessage[];
  readonly expectedInputTokens: number;
}

export interface PromptSource {
  /** The prompt of request `index`; `lengths` is the request's length stream (shared by every group). */
  build(index: number, lengths: Rng): BuiltPrompt;
}

export type PromptSourceKind = 'synthetic' | 'dataset';
type PromptSourceFactory = (scenario: ResolvedScenario, group: ResolvedGroup) => PromptSource;

/** The scenario's shared prefix: identical for every request and group of the scenario. */
function sharedPrefix(scenario: ResolvedScenario): string {
  const tokens = scenario.prompt.sharedPrefixTokens;
  return tokens > 0 ? generateTokenText(createRng(streamSeed(scenario.seed, scenario.name, 'prefix')), tokens, true) : '';
}

function systemMessage(scenario: ResolvedScenario): { message: ChatMessage | null; tokens: number } {
  const system = scenario.prompt.system;
  return system === null ? { message: null, tokens: 0 } : { message: { role: 'system', content: system }, tokens: countTokens(system) };
}

/**
 * Token-exact synthetic text. Lengths come from the per-request length stream, so every group of a
 * scenario asks for the same lengths; the text itself also depends on the group, so that groups sharing a
 * model never hit each other's prompt cache and skew a tier comparison.
 */
const synthetic: PromptSourceFactory = (scenario, group) => {
  const prefix = sharedPrefix(scenario);
  const system = systemMessage(scenario);
  const fixedTokens = scenario.prompt.sharedPrefixTokens + system.tokens;
  const textBase = streamSeed(scenario.seed, scenario.name, group.model ?? '*', group.tier ?? '-', 'text');
  const inputTokens = scenario.prompt.inputTokens;
  const text = createSyntheticText(textBase, maxLength(inputTokens));
  const afterPrefix = prefix.length > 0;
  return {
    build(index, lengths) {
      const count = sampleLength(inputTokens, lengths);
      const user: ChatMessage = { role: 'user', content: prefix + text.text(requestRng(textBase, index), count, afterPrefix) };
      return { messages: system.message ? [system.message, user] : [user], expectedInputTokens: fixedTokens + count };
    },
  };
};

/** Prompts from a JSONL file, in a seeded order that is the same in every run, cycled. */
const dataset: PromptSourceFactory = (scenario) => {
  const spec = scenario.prompt.dataset!;
  const prefix = sharedPrefix(scenario);
  const system = systemMessage(scenario);
  const entries = loadDataset(spec.path, spec.field).map((entry) => {
    const messages = [...entry.messages];
    let tokens = entry.tokens;
    if (prefix) {
      const first = messages.findIndex((m) => m.role === 'user' && typeof m.content === 'string');
      if (first >= 0) {
        const original = messages[first]!;
        const withPrefix = { ...original, content: `${prefix}\n\n${original.content as string}` } as ChatMessage;
        tokens += messageTokens(withPrefix) - messageTokens(original);
        messages[first] = withPrefix;
      }
    }
    if (system.message && !messages.some((m) => m.role === 'system' || m.role === 'developer')) {
      messages.unshift(system.message);
      tokens += system.tokens;
    }
    return { messages, tokens };
  });
  const order = shuffledOrder(entries.length, createRng(streamSeed(scenario.seed, scenario.name, 'dataset-order')));
  return {
    build(index) {
      const entry = entries[order[index % order.length]!]!;
      return { messages: [...entry.messages], expectedInputTokens: entry.tokens };
    },
  };
};

function shuffledOrder(length: number, rng: Rng): number[] {
  const order = Array.from({ length }, (_, i) => i);
  for (let i = length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

export const PROMPT_SOURCES = { synthetic, dataset } as const satisfies Record<PromptSourceKind, PromptSourceFactory>;

export function promptSourceKind(scenario: ResolvedScenario): PromptSourceKind {
  return scenario.prompt.dataset ? 'dataset' : 'synthetic';
}
