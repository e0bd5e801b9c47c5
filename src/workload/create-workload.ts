/**
 * What to send: the chat completion body of request number `index` of a group, built from the scenario's
 * prompt spec and request fields. Deterministic for (scenario seed, group, index): the same profile sends
 * the same requests in every run, whatever order they are built in.
 *
 * Token counts and token-exact prompt lengths are in the tokenizer the caller passes: the profile's
 * target.tokenizer as the runner (or validate) loaded it, else o200k_base. This layer never loads one.
 */
import { InferbenchError } from '../errors.js';
import type { ResolvedGroup, ResolvedScenario } from '../profile/resolved-profile.js';
import { o200kTokenizer } from '../util/tokenizer.js';
import type { EncodingTokenizer } from '../util/tokenizer.js';
import { PROMPT_SOURCES, promptSourceKind } from './prompt-sources.js';
import { requestRng, streamSeed } from './request-seed.js';
import type { RequestPlan } from './request-plan.js';
import { sampleLength } from './sample-length.js';

export type { RequestPlan } from './request-plan.js';

export interface Workload {
  next(index: number): RequestPlan;
}

/**
 * Builds the workload of one group, its prompts sized and counted in `tokenizer`. Throws BAD_PROFILE for an
 * unreadable dataset or a tokenizer that synthetic prompts cannot be made exact in, INTERNAL for an
 * unresolved model.
 */
export function createWorkload(
  scenario: ResolvedScenario,
  group: ResolvedGroup,
  tokenizer: EncodingTokenizer = o200kTokenizer(),
): Workload {
  if (group.model === null) {
    throw new InferbenchError('INTERNAL', `group ${group.key} has no model yet`, {
      hint: 'resolve models first with resolveGroupModels(profile, firstModel)',
    });
  }
  const model = group.model;
  const source = PROMPT_SOURCES[promptSourceKind(scenario)](scenario, group, tokenizer);
  const lengthBase = streamSeed(scenario.seed, scenario.name, 'lengths');
  // Spec fields first, then the fields only some servers take: one object spread per request.
  const request = { ...scenario.request, ...scenario.requestExtra };
  const tier = group.tier;
  const outputTokens = scenario.prompt.outputTokens;
  return {
    next(index) {
      const lengths = requestRng(lengthBase, index);
      const prompt = source.build(index, lengths);
      const body: Record<string, unknown> = { model, messages: prompt.messages, ...request };
      if (tier !== null) body.service_tier = tier;
      if (outputTokens !== null) body.max_completion_tokens = sampleLength(outputTokens, lengths);
      return { body, expectedInputTokens: prompt.expectedInputTokens };
    },
  };
}
