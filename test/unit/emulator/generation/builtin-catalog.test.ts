import { describe, expect, it } from 'vitest';
import { BUILTIN_MODELS } from '../../../../src/emulator/catalog/builtin-catalog.js';
import { planCompletion } from '../../../../src/emulator/generation/plan-completion.js';
import { validateChatRequest } from '../../../../src/emulator/validation/validate-chat-request.js';
import { expectConsistent } from './plan-helpers.js';

describe('validation and generation over the built-in catalog', () => {
  it.each(BUILTIN_MODELS.map((m) => [m.id, m] as const))(
    '%s: a plain request validates and plans consistently',
    (_id, model) => {
      const request = validateChatRequest(
        {
          model: model.id,
          messages: [{ role: 'user', content: 'Summarise the news.' }],
          max_completion_tokens: 2000,
          seed: 7,
        },
        { model, dedicatedEndpoint: false },
      );
      const plan = planCompletion(request, model, 1);
      expectConsistent(plan);
      expect(plan.reasoningTokens > 0).toBe(model.reasoning !== null);
      expect(plan.tokens.length).toBeLessThanOrEqual(2000);
    },
  );

  it('each reasoning model accepts exactly its own efforts', () => {
    const reasoners = BUILTIN_MODELS.filter((m) => m.reasoning !== null);
    expect(reasoners.length).toBeGreaterThanOrEqual(2);
    for (const model of reasoners) {
      for (const effort of ['none', 'low', 'medium', 'high']) {
        const body = { model: model.id, messages: [{ role: 'user', content: 'Think.' }], reasoning_effort: effort };
        const accepted = model.reasoning!.efforts.includes(effort as 'low');
        if (accepted)
          expect(validateChatRequest(body, { model, dedicatedEndpoint: false }).reasoning_effort).toBe(effort);
        else
          expect(() => validateChatRequest(body, { model, dedicatedEndpoint: false })).toThrow(
            /is not supported by model/,
          );
      }
    }
  });
});
