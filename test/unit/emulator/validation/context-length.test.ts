import { describe, expect, it } from 'vitest';
import { countPromptTokens } from '../../../../src/emulator/generation/prompt-tokens.js';
import { countTokens } from '../../../../src/util/tokenizer.js';
import { smallContextModel } from '../generation/model-fixtures.js';
import { body, rejection, validate } from './expect-bad-request.js';

const options = { model: smallContextModel };

/** A user message whose prompt costs exactly `promptTokens` (3 per message + role + 3 priming). */
function messagesOf(promptTokens: number) {
  const overhead = 3 + countTokens('user') + 3;
  return [{ role: 'user', content: ' hello'.repeat(promptTokens - overhead) }];
}

describe('validateChatRequest: context length', () => {
  it('counts the prompt as documented', () => {
    expect(countPromptTokens(validate(body({ messages: messagesOf(40) }), options)).promptTokens).toBe(40);
  });

  it('prompt + max_completion_tokens may equal the context length, not exceed it', () => {
    expect(validate(body({ messages: messagesOf(40), max_completion_tokens: 60 }), options).max_completion_tokens).toBe(
      60,
    );
    const error = rejection(body({ messages: messagesOf(40), max_completion_tokens: 61 }), options);
    expect(error.code).toBe('context_length_exceeded');
    expect(error.param).toBe('messages');
    expect(error.message).toMatch(
      /maximum context length is 100 tokens. However, you requested 101 tokens \(40 in the messages, 61 in the completion\)/,
    );
  });

  it('without max_completion_tokens only the prompt must fit', () => {
    validate(body({ messages: messagesOf(100) }), options);
    const error = rejection(body({ messages: messagesOf(101) }), options);
    expect(error.code).toBe('context_length_exceeded');
    expect(error.message).toMatch(/you requested 101 tokens in the messages/);
  });
});
