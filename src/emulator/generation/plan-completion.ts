/** PLACEHOLDER (the generation helper replaces this file): decides a whole completion up front. */
import type { ChatCompletionRequest } from '../../protocol/chat.js';
import { createRng } from '../../util/rng.js';
import { generateTokenPieces } from '../../util/token-text.js';
import { countTokens } from '../../util/tokenizer.js';
import type { CompletionPlan, PlannedToken } from '../completion-plan.js';
import type { ModelSpec } from '../model-spec.js';

/**
 * Pure and deterministic for a given request with a seed. `fallbackSeed` is used when the request has
 * no `seed` (the server passes a per-request counter so unseeded outputs vary).
 */
export function planCompletion(request: ChatCompletionRequest, model: ModelSpec, fallbackSeed: number): CompletionPlan {
  const rng = createRng(request.seed ?? fallbackSeed);
  const count = Math.min(request.max_completion_tokens ?? model.typicalOutputTokens, model.typicalOutputTokens);
  const pieces = generateTokenPieces(rng, count);
  const tokens: PlannedToken[] = pieces.map((text) => ({ kind: 'content', text, toolIndex: -1, logprob: -0.1, top: [] }));
  return {
    tokens,
    reasoningTokens: 0,
    content: pieces.join(''),
    reasoning: null,
    toolCalls: null,
    finishReason: 'stop',
    promptTokens: countTokens(JSON.stringify(request.messages)),
    imageTokens: 0,
    logprobs: false,
    topLogprobs: 0,
  };
}
