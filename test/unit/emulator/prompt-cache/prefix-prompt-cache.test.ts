import { describe, expect, it } from 'vitest';
import { PrefixPromptCache } from '../../../../src/emulator/prompt-cache/prefix-prompt-cache.js';
import type { ChatCompletionRequest, ChatMessage } from '../../../../src/protocol/chat.js';

const system: ChatMessage = { role: 'system', content: 'You are terse. '.repeat(200) };
const question: ChatMessage = { role: 'user', content: 'What is the capital of France? '.repeat(50) };
const answer: ChatMessage = { role: 'assistant', content: 'Paris.' };
const followUp: ChatMessage = { role: 'user', content: 'And of Italy?' };

function request(messages: ChatMessage[], key: string | null = 'conv-1'): ChatCompletionRequest {
  return { model: 'm', messages, prompt_cache_key: key };
}

describe('prefix prompt cache', () => {
  it('caches nothing the first time and the whole prompt, in whole blocks, on an exact repeat', () => {
    const cache = new PrefixPromptCache();
    expect(cache.cachedTokens(request([system, question]), 1000, 'm')).toBe(0);
    expect(cache.cachedTokens(request([system, question]), 1000, 'm')).toBe(896);
  });

  it('caches the shared message prefix of a growing conversation, proportionally to its size', () => {
    const cache = new PrefixPromptCache({ blockTokens: 1 });
    cache.cachedTokens(request([system, question]), 1000, 'm');
    const cached = cache.cachedTokens(request([system, question, answer, followUp]), 1100, 'm');
    // system + question are nearly all of the characters of the new prompt, and all of the previous one:
    // never more than the previous prompt's 1000 tokens.
    expect(cached).toBeGreaterThan(950);
    expect(cached).toBeLessThanOrEqual(1000);
    // A different second message shares only the system prompt (about a third of the characters).
    const branch = cache.cachedTokens(request([system, followUp]), 600, 'm');
    expect(branch).toBeGreaterThan(450);
    expect(branch).toBeLessThan(600);
  });

  it('needs the same prompt_cache_key, the same model and the same first message', () => {
    const cache = new PrefixPromptCache();
    cache.cachedTokens(request([system, question]), 1000, 'm');
    expect(cache.cachedTokens(request([system, question], null), 1000, 'm')).toBe(0);
    expect(cache.cachedTokens(request([system, question], 'conv-2'), 1000, 'm')).toBe(0);
    expect(cache.cachedTokens(request([system, question]), 1000, 'other-model')).toBe(0);
    expect(cache.cachedTokens(request([question, system]), 1000, 'm')).toBe(0);
    // Different tools change everything after them.
    const withTools: ChatCompletionRequest = {
      ...request([question, system]),
      tools: [{ type: 'function', function: { name: 'f' } }],
    };
    expect(cache.cachedTokens(withTools, 1000, 'm')).toBe(0);
  });

  it('is bounded: the least recently used key goes first', () => {
    const cache = new PrefixPromptCache({ maxEntries: 2 });
    cache.cachedTokens(request([system], 'a'), 500, 'm');
    cache.cachedTokens(request([system], 'b'), 500, 'm');
    expect(cache.cachedTokens(request([system], 'a'), 500, 'm')).toBe(384);
    cache.cachedTokens(request([system], 'c'), 500, 'm');
    expect(cache.size).toBe(2);
    expect(cache.cachedTokens(request([system], 'b'), 500, 'm')).toBe(0);
  });
});

describe('prefix prompt cache: prefixes inside a message', () => {
  const doc = 'Shared document text that many requests start with. '.repeat(80);

  it('caches the common leading characters of a user message, not only equal messages', () => {
    const cache = new PrefixPromptCache({ blockTokens: 1 });
    const first = request([{ role: 'user', content: `${doc}Question one?` }], 'p0');
    const second = request([{ role: 'user', content: `${doc}A different question, somewhat longer.` }], 'p0');
    expect(cache.cachedTokens(first, 1000, 'm')).toBe(0);
    const cached = cache.cachedTokens(second, 1010, 'm');
    // The document is ~99% of the characters; the block rounding (64 characters) loses less than 2%.
    expect(cached).toBeGreaterThan(950);
    expect(cached).toBeLessThan(1010);
  });

  it('caches nothing when the messages differ within their first block', () => {
    const cache = new PrefixPromptCache({ blockTokens: 1 });
    cache.cachedTokens(request([{ role: 'user', content: `A${doc}` }], 'p0'), 1000, 'm');
    expect(cache.cachedTokens(request([{ role: 'user', content: `B${doc}` }], 'p0'), 1000, 'm')).toBe(0);
  });
});
