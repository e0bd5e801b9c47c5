import { describe, expect, it } from 'vitest';
import { countTokens } from '../../../../src/util/tokenizer.js';
import { effortNoneModel, reasoningModel } from './model-fixtures.js';
import { plan } from './plan-helpers.js';

describe('planCompletion: reasoning models', () => {
  it('reasons first, then answers; reasoning text returned apart', () => {
    const result = plan({ seed: 4 }, reasoningModel);
    expect(result.reasoningTokens).toBeGreaterThan(0);
    expect(result.tokens.slice(0, result.reasoningTokens).every((t) => t.kind === 'reasoning')).toBe(true);
    expect(result.tokens.slice(result.reasoningTokens).every((t) => t.kind === 'content')).toBe(true);
    expect(countTokens(result.reasoning!)).toBe(result.reasoningTokens);
    expect(result.content!.length).toBeGreaterThan(0);
    expect(result.finishReason).toBe('stop');
  });

  it('reasons more at higher effort (default medium), within +-20% of the budget', () => {
    const average = (effort?: string) => {
      let total = 0;
      for (let seed = 1; seed <= 40; seed++)
        total += plan(effort ? { seed, reasoning_effort: effort } : { seed }, reasoningModel).reasoningTokens;
      return total / 40;
    };
    const low = average('low');
    const medium = average('medium');
    const high = average('high');
    expect(low).toBeGreaterThan(40 * 0.8);
    expect(low).toBeLessThan(40 * 1.2);
    expect(medium).toBeGreaterThan(120 * 0.8);
    expect(medium).toBeLessThan(120 * 1.2);
    expect(high).toBeGreaterThan(400 * 0.8);
    expect(high).toBeLessThan(400 * 1.2);
    expect(average()).toBe(medium);
  });

  it('effort none reasons on the second model (it enables reasoning like the others)', () => {
    const result = plan({ seed: 4, reasoning_effort: 'none' }, effortNoneModel);
    expect(result.reasoningTokens).toBeGreaterThan(0);
    expect(result.reasoning).not.toBeNull();
  });

  it('max_completion_tokens caps reasoning plus answer', () => {
    const cut = plan({ seed: 4, max_completion_tokens: 30, reasoning_effort: 'high' }, reasoningModel);
    expect(cut.tokens).toHaveLength(30);
    expect(cut.reasoningTokens).toBe(30);
    expect(cut.content).toBe('');
    expect(cut.finishReason).toBe('length');
    const full = plan({ seed: 4, reasoning_effort: 'low' }, reasoningModel);
    const capped = plan(
      { seed: 4, reasoning_effort: 'low', max_completion_tokens: full.reasoningTokens + 5 },
      reasoningModel,
    );
    expect(capped.reasoningTokens).toBe(full.reasoningTokens);
    expect(capped.tokens.length - capped.reasoningTokens).toBe(5);
    expect(capped.finishReason).toBe('length');
  });

  it('raw format puts <think>...</think> inside the content, exactly tokenized', () => {
    const parsed = plan({ seed: 6, reasoning_format: 'parsed' }, reasoningModel);
    const raw = plan({ seed: 6, reasoning_format: 'raw' }, reasoningModel);
    expect(raw.reasoning).toBeNull();
    expect(raw.content).toBe(`<think>\n${parsed.reasoning}\n</think>\n\n${parsed.content}`);
    expect(raw.tokens.every((t) => t.kind === 'content')).toBe(true);
    expect(raw.tokens).toHaveLength(countTokens(raw.content!));
    const thinkTokens = raw.tokens
      .slice(0, raw.reasoningTokens)
      .map((t) => t.text)
      .join('');
    expect(raw.finishReason).toBe('stop');
    // Room for the tags is kept, so a cap that fits reasoning + answer + tags does not cut the answer.
    const fitted = plan({ seed: 6, reasoning_format: 'raw', max_completion_tokens: raw.tokens.length }, reasoningModel);
    expect(fitted.content).toBe(raw.content);
    expect(fitted.finishReason).toBe('stop');
    // The closing tag's last token may carry the newlines that follow it.
    expect(thinkTokens).toMatch(/<\/think>\s*$/);
  });

  it('hidden format omits the reasoning text but still counts its tokens', () => {
    const parsed = plan({ seed: 6 }, reasoningModel);
    const hidden = plan({ seed: 6, reasoning_format: 'hidden' }, reasoningModel);
    expect(hidden.reasoning).toBeNull();
    expect(hidden.reasoningTokens).toBe(parsed.reasoningTokens);
    expect(hidden.tokens).toHaveLength(parsed.tokens.length);
    expect(hidden.tokens.slice(0, hidden.reasoningTokens).every((t) => t.kind === 'reasoning' && t.text === '')).toBe(
      true,
    );
    expect(hidden.content).toBe(parsed.content);
  });

  it('reasoning logprobs are planned on the reasoning tokens', () => {
    const result = plan({ seed: 6, logprobs: true, top_logprobs: 2 }, reasoningModel);
    const reasoningTokens = result.tokens.filter((t) => t.kind === 'reasoning');
    expect(reasoningTokens.length).toBe(result.reasoningTokens);
    expect(reasoningTokens.every((t) => t.top.length === 2 && t.logprob <= 0)).toBe(true);
  });
});
