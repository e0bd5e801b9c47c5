import { describe, expect, it } from 'vitest';
import { countPromptTokens } from '../../../../src/emulator/generation/prompt-tokens.js';
import { IMAGE_BASE_TOKENS } from '../../../../src/protocol/image-tokens.js';
import type { ChatCompletionRequest } from '../../../../src/protocol/chat.js';
import { countTokens } from '../../../../src/util/tokenizer.js';

const IMAGE = { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AAAA' } };

describe('prompt token count', () => {
  it('is 3 per message plus role and content, plus 3 for the reply', () => {
    const request: ChatCompletionRequest = {
      model: 'm',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
    };
    const expected =
      3 +
      countTokens('system') +
      countTokens('You are terse.') +
      3 +
      countTokens('user') +
      countTokens('What is the capital of France?') +
      3;
    expect(countPromptTokens(request)).toEqual({ promptTokens: expected, imageTokens: 0 });
  });

  it('adds tool definitions, assistant tool calls, tool_call_id and names', () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
      },
    ];
    const calls = [{ id: 'c1', type: 'function' as const, function: { name: 'lookup', arguments: '{"q":"x"}' } }];
    const request: ChatCompletionRequest = {
      model: 'm',
      tools,
      messages: [
        { role: 'user', content: 'find x', name: 'ann' },
        { role: 'assistant', content: null, tool_calls: calls },
        { role: 'tool', tool_call_id: 'c1', content: 'found' },
      ],
    };
    const expected =
      3 +
      (3 + countTokens('user') + countTokens('find x') + 1 + countTokens('ann')) +
      (3 + countTokens('assistant') + countTokens(JSON.stringify(calls))) +
      (3 + countTokens('tool') + countTokens('found') + countTokens('c1')) +
      countTokens(JSON.stringify(tools));
    expect(countPromptTokens(request).promptTokens).toBe(expected);
  });

  // Images by their size: image-tokens.test.ts. Data that is not an image (validation refuses it) costs the base.
  it('counts an unreadable image part at the base tokens, reported apart', () => {
    const request: ChatCompletionRequest = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Compare these' }, IMAGE, IMAGE] }],
    };
    const text = 3 + 3 + countTokens('user') + countTokens('Compare these');
    expect(countPromptTokens(request)).toEqual({
      promptTokens: text + 2 * IMAGE_BASE_TOKENS,
      imageTokens: 2 * IMAGE_BASE_TOKENS,
    });
  });

  it('counts the json_schema of response_format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const base: ChatCompletionRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    const withSchema: ChatCompletionRequest = {
      ...base,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema } },
    };
    expect(countPromptTokens(withSchema).promptTokens - countPromptTokens(base).promptTokens).toBe(
      countTokens(JSON.stringify(schema)),
    );
  });
});
