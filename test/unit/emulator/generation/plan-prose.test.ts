import { describe, expect, it } from 'vitest';
import { countTokens } from '../../../../src/util/tokenizer.js';
import { smallContextModel, textModel } from './model-fixtures.js';
import { plan } from './plan-helpers.js';

describe('planCompletion: prose answers', () => {
  it('answers with text whose token count is exactly the planned tokens', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const result = plan({ seed });
      expect(result.finishReason).toBe('stop');
      expect(result.content!.length).toBeGreaterThan(0);
      expect(countTokens(result.content!)).toBe(result.tokens.length);
      expect(result.reasoning).toBeNull();
      expect(result.toolCalls).toBeNull();
    }
  });

  it('spreads answer lengths around the typical output length', () => {
    const lengths = Array.from({ length: 200 }, (_, seed) => plan({ seed }).tokens.length);
    const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    expect(mean).toBeGreaterThan(textModel.typicalOutputTokens * 0.85);
    expect(mean).toBeLessThan(textModel.typicalOutputTokens * 1.15);
    expect(new Set(lengths).size).toBeGreaterThan(30);
  });

  it('caps at max_completion_tokens with finish_reason length', () => {
    for (const cap of [1, 2, 17, 50]) {
      const result = plan({ seed: 3, max_completion_tokens: cap });
      expect(result.tokens).toHaveLength(cap);
      expect(result.finishReason).toBe('length');
      expect(countTokens(result.content!)).toBe(cap);
    }
    const roomy = plan({ seed: 3, max_completion_tokens: 4000 });
    expect(roomy.finishReason).toBe('stop');
  });

  it('stops where the context ends when max_completion_tokens is absent', () => {
    const result = plan({ seed: 9, messages: [{ role: 'user', content: ' word'.repeat(80) }] }, smallContextModel);
    expect(result.promptTokens + result.tokens.length).toBe(smallContextModel.limits.maxContextLength);
    expect(result.finishReason).toBe('length');
  });

  it('cuts before the first stop sequence, which is excluded', () => {
    const full = plan({ seed: 5 }).content!;
    const firstPeriod = full.indexOf('.');
    expect(firstPeriod).toBeGreaterThan(0);
    const cut = plan({ seed: 5, stop: '.' });
    expect(cut.content).toBe(full.slice(0, firstPeriod));
    expect(cut.finishReason).toBe('stop');
    expect(countTokens(cut.content!)).toBe(cut.tokens.length);
  });

  it('cuts inside a token and at the earliest of several stops', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const full = plan({ seed }).content!;
      const words = full.split(' ').filter((w) => w.length > 3);
      // A stop that starts mid-word: part of a word piece is kept and re-tokenized.
      const stop = words[Math.min(5, words.length - 1)]!.slice(2);
      const result = plan({ seed, stop: ['zzzz-never', stop] });
      expect(result.content).toBe(full.slice(0, full.indexOf(stop)));
      expect(result.content!.includes(stop)).toBe(false);
    }
  });

  it('is deterministic for a seed and varies across seeds', () => {
    expect(JSON.stringify(plan({ seed: 42 }))).toBe(JSON.stringify(plan({ seed: 42 })));
    expect(JSON.stringify(plan({ seed: 42 }, textModel, 1))).toBe(JSON.stringify(plan({ seed: 42 }, textModel, 999)));
    expect(plan({ seed: 42 }).content).not.toBe(plan({ seed: 43 }).content);
    // Different prompts under one seed answer differently.
    expect(plan({ seed: 42, messages: [{ role: 'user', content: 'Another question' }] }).content).not.toBe(
      plan({ seed: 42 }).content,
    );
  });

  it('uses the fallback seed without a seed, except at temperature 0 (greedy)', () => {
    expect(plan({}, textModel, 1).content).toBe(plan({}, textModel, 1).content);
    expect(plan({}, textModel, 1).content).not.toBe(plan({}, textModel, 2).content);
    expect(plan({ temperature: 0 }, textModel, 1).content).toBe(plan({ temperature: 0 }, textModel, 2).content);
  });

  it('logprobs: per token, <= 0, with top alternatives, without changing the text', () => {
    const plain = plan({ seed: 8 });
    const withLogprobs = plan({ seed: 8, logprobs: true, top_logprobs: 3 });
    expect(withLogprobs.content).toBe(plain.content);
    expect(withLogprobs.logprobs).toBe(true);
    expect(withLogprobs.topLogprobs).toBe(3);
    expect(plain.logprobs).toBe(false);
    for (const token of withLogprobs.tokens) {
      expect(token.top).toHaveLength(3);
      expect(token.top[0]).toEqual({ token: token.text, logprob: token.logprob });
      expect(token.top[1]!.logprob).toBeLessThan(token.top[0]!.logprob);
      expect(token.top[2]!.logprob).toBeLessThan(token.top[1]!.logprob);
      expect(new Set(token.top.map((t) => t.token)).size).toBe(3);
    }
    expect(new Set(withLogprobs.tokens.map((t) => t.logprob)).size).toBeGreaterThan(10);
    const noTop = plan({ seed: 8, logprobs: true });
    expect(noTop.tokens.every((t) => t.top.length === 0)).toBe(true);
  });

  it('accepts prediction (on a model that supports it), logit_bias, penalties, user and sampling fields', () => {
    const predicting = { ...textModel, supportedParameters: ['prediction'] };
    const result = plan(
      {
        seed: 2,
        prediction: { type: 'content', content: 'draft' },
        logit_bias: { '1234': -100 },
        frequency_penalty: 0.5,
        presence_penalty: -0.5,
        user: 'u1',
        top_p: 0.9,
      },
      predicting,
    );
    expect(result.finishReason).toBe('stop');
  });
});
