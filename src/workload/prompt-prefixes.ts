/**
 * `prompt.prefixes`: N distinct prefixes of exactly K tokens per group, and which one request `index` uses.
 * A request uses a prefix with probability `share` and then one of the N uniformly, both drawn from the
 * request's own seeded stream, so request i gets the same prefix in every run, shard and worker. The
 * prefix starts the first user message (where shared_prefix_tokens goes), the request sends
 * `prompt_cache_key: "<scenario>-<hash>-p<i>"` (unless cache_key: false) and is labelled `prefix: p<i>`,
 * or `prefix: none` without one. Prefix texts are seeded per group (its key), like the synthetic words, so
 * that groups sharing a model never hit each other's prompt cache. Everything is built with the workload:
 * choosing costs one seeded draw per request and allocates nothing.
 */
import { InferbenchError } from '../errors.js';
import type { ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';
import { createRng } from '../util/rng.js';
import { generateTokenText, tokenVocabulary } from '../util/token-text.js';
import type { EncodingTokenizer } from '../util/tokenizer.js';
import type { RequestPlan } from './request-plan.js';
import { requestRng, streamSeed } from './request-seed.js';

/** The prefix one request uses. */
export interface ChosenPrefix {
  /** 0-based prefix group. */
  readonly group: number;
  readonly text: string;
  /** Tokens of `text`, exactly. */
  readonly tokens: number;
  /** prompt_cache_key to send, or null (cache_key: false). */
  readonly cacheKey: string | null;
  /** `{ prefix: "p<i>" }`, shared by every request of the group. */
  readonly labels: Readonly<Record<string, string>>;
}

export interface PrefixSet {
  /** The prefix of request `index`, or null for a request without one. */
  choose(index: number): ChosenPrefix | null;
  readonly prefixes: readonly ChosenPrefix[];
}

/** Prefixes whose token count a named tokenizer checks (each is K tokens by construction; a few prove it). */
const CHECKED_PREFIXES = 8;

/** The label requests carry. */
export const PREFIX_LABEL = 'prefix';

/**
 * The scenario's prefixes for `group`, or null when the scenario has no `prompt.prefixes`. `named`: the
 * profile's own tokenizer (its counts are checked), null for o200k.
 */
export function createPrefixSet(
  scenario: ResolvedScenario,
  group: ResolvedGroup,
  named: EncodingTokenizer | null,
): PrefixSet | null {
  const spec = scenario.prompt.prefixes;
  if (spec === undefined) return null;
  const vocab = tokenVocabulary(named ?? undefined);
  const textBase = streamSeed(scenario.seed, group.key, 'prefixes');
  const hash = streamSeed(scenario.seed, group.key, 'prefixes', String(spec.groups), String(spec.tokens))
    .toString(16)
    .padStart(8, '0');
  const prefixes: ChosenPrefix[] = [];
  for (let i = 0; i < spec.groups; i++) {
    const text = generateTokenText(createRng(streamSeed(textBase, String(i))), spec.tokens, true, vocab);
    if (named !== null && i < CHECKED_PREFIXES && named.count(text) !== spec.tokens)
      throw notExactPrefix(named, spec.tokens, named.count(text));
    prefixes.push(
      Object.freeze({
        group: i,
        text,
        tokens: spec.tokens,
        cacheKey: spec.cacheKey ? `${scenario.name}-${hash}-p${i}` : null,
        labels: Object.freeze({ [PREFIX_LABEL]: `p${i}` }),
      }),
    );
  }
  const choiceBase = streamSeed(scenario.seed, scenario.name, 'prefix-choice');
  const share = spec.share;
  const last = spec.groups - 1;
  return {
    prefixes,
    choose(index) {
      const rng = requestRng(choiceBase, index);
      if (!(rng.next() < share)) return null;
      return prefixes[rng.int(0, last)] as ChosenPrefix;
    },
  };
}

function notExactPrefix(named: EncodingTokenizer, tokens: number, counted: number): InferbenchError {
  return new InferbenchError(
    'BAD_PROFILE',
    `target.tokenizer ${named.name}: cannot build token-exact prompt.prefixes (a prefix of ${tokens} pieces encodes to ${counted} tokens)`,
    { hint: 'its merges cross word boundaries; leave target.tokenizer out (o200k_base)' },
  );
}

/**
 * The plan of a request built from a prompt of a scenario with prefixes: its prompt_cache_key in `body`
 * (when the prefix has one) and its `prefix` label.
 */
export function prefixedPlan(
  body: Record<string, unknown>,
  expectedInputTokens: number,
  chosen: ChosenPrefix | null,
): RequestPlan {
  if (chosen === null) return { body, expectedInputTokens, labels: NONE_LABELS };
  if (chosen.cacheKey !== null) body.prompt_cache_key = chosen.cacheKey;
  return { body, expectedInputTokens, labels: chosen.labels };
}

const NONE_LABELS: Readonly<Record<string, string>> = Object.freeze({ [PREFIX_LABEL]: 'none' });
