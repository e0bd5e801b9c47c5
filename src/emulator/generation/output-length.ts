/**
 * How many tokens the emulated model wants to write before anything caps it: a seeded spread around the
 * model's typical answer length, and around the reasoning budget of the requested effort.
 */
import { lognormal } from '../../util/distributions.js';
import type { Rng } from '../../util/rng.js';
import type { ReasoningEffort } from '../../protocol/chat.js';
import type { ReasoningSpec } from '../model-spec.js';

/** Relative spread of answer lengths (stddev / mean), typical of chat answers. */
const ANSWER_SPREAD = 0.35;
/** Reasoning length varies +-20% around the effort's budget. */
const REASONING_SPREAD = 0.2;

/** Answer tokens, at least 1. */
export function answerLength(rng: Rng, typicalTokens: number): number {
  if (typicalTokens <= 1) return 1;
  return Math.max(1, Math.round(lognormal(rng, typicalTokens, typicalTokens * ANSWER_SPREAD)));
}

/** Reasoning tokens for an effort (the model's default when none is asked for); 0 if it has no budget. */
export function reasoningLength(
  rng: Rng,
  reasoning: ReasoningSpec,
  effort: ReasoningEffort | null | undefined,
): number {
  const budget =
    reasoning.tokensByEffort[effort ?? reasoning.defaultEffort] ??
    reasoning.tokensByEffort[reasoning.defaultEffort] ??
    0;
  if (budget <= 0) return 0;
  const factor = 1 - REASONING_SPREAD + 2 * REASONING_SPREAD * rng.next();
  return Math.max(1, Math.round(budget * factor));
}
