/** Test helpers: validate-then-plan, and the invariants every plan must keep. */
import { expect } from 'vitest';
import type { CompletionPlan } from '../../../../src/emulator/completion-plan.js';
import { planCompletion } from '../../../../src/emulator/generation/plan-completion.js';
import type { ModelSpec } from '../../../../src/emulator/model-spec.js';
import { validateChatRequest } from '../../../../src/emulator/validation/validate-chat-request.js';
import { countTokens } from '../../../../src/util/tokenizer.js';
import { textModel } from './model-fixtures.js';

export function plan(extra: Record<string, unknown>, model: ModelSpec = textModel, fallbackSeed = 1): CompletionPlan {
  const body = { model: model.id, messages: [{ role: 'user', content: 'Tell me about rivers.' }], ...extra };
  const plan = planCompletion(validateChatRequest(body, { model, dedicatedEndpoint: false }), model, fallbackSeed);
  expectConsistent(plan);
  return plan;
}

const join = (plan: CompletionPlan, kind: string, toolIndex?: number) =>
  plan.tokens
    .filter((t) => t.kind === kind && (toolIndex === undefined || t.toolIndex === toolIndex))
    .map((t) => t.text);

/** Tokens, text and counts agree, as the real tokenizer sees them. */
export function expectConsistent(plan: CompletionPlan): void {
  const content = join(plan, 'content');
  if (plan.toolCalls === null) {
    expect(content.join('')).toBe(plan.content);
    expect(countTokens(plan.content ?? '')).toBe(content.length);
  } else {
    expect(plan.content).toBeNull();
    expect(content).toHaveLength(0);
    plan.toolCalls.forEach((call, i) => {
      const pieces = join(plan, 'tool', i);
      expect(pieces.join('')).toBe(call.function.arguments);
      expect(countTokens(call.function.arguments)).toBe(pieces.length);
    });
  }
  const reasoning = join(plan, 'reasoning');
  if (plan.reasoning !== null) {
    expect(reasoning.join('')).toBe(plan.reasoning);
    expect(countTokens(plan.reasoning)).toBe(reasoning.length);
    expect(plan.reasoningTokens).toBe(reasoning.length);
  }
  // Reasoning comes first.
  const firstOther = plan.tokens.findIndex((t) => t.kind !== 'reasoning');
  if (firstOther >= 0) expect(plan.tokens.slice(firstOther).some((t) => t.kind === 'reasoning')).toBe(false);
  for (const token of plan.tokens) expect(token.logprob).toBeLessThanOrEqual(0);
}
