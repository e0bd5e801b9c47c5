/**
 * The completions body from the chat body the workload built: the one user text as `prompt`,
 * max_completion_tokens as max_tokens, every other field as given, the chat body untouched; a prompt of
 * several messages (a dataset entry with a system message or history) refused with BAD_PROFILE.
 */
import { describe, expect, it } from 'vitest';
import { completionsBody } from '../../../src/workload/apis/completions-body.js';

describe('completionsBody', () => {
  it('sends the user text as prompt and max_completion_tokens as max_tokens', () => {
    const chat = {
      model: 'm',
      messages: [{ role: 'user', content: 'hello there' }],
      max_completion_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
      service_tier: 'flex',
      prompt_cache_key: 'p3',
    };
    const before = structuredClone(chat);
    expect(completionsBody(chat)).toEqual({
      model: 'm',
      prompt: 'hello there',
      max_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
      service_tier: 'flex',
      prompt_cache_key: 'p3',
    });
    expect(chat).toEqual(before);
    expect(completionsBody({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).toEqual({
      model: 'm',
      prompt: 'x',
    });
  });

  it('refuses a prompt that is not one user text', () => {
    for (const messages of [
      [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      [{ role: 'assistant', content: 'hi' }],
      [],
    ])
      expect(() => completionsBody({ model: 'm', messages })).toThrow(
        expect.objectContaining({
          code: 'BAD_PROFILE',
          message: expect.stringContaining('api: completions sends one text'),
        }),
      );
  });
});
