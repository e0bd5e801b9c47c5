/**
 * The Anthropic Messages body from the chat body the workload built: system messages at the top level,
 * turns and content parts as Anthropic blocks (images base64 or url, tool calls as tool_use, tool results
 * as tool_result), max_tokens (required: the workload's, request_extra's, or the documented default),
 * stop_sequences, metadata.user_id, tools and tool_choice in Anthropic's shapes, OpenAI-only fields the
 * workload adds dropped, the chat body untouched; a prompt that cannot be sent refused.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import {
  MESSAGES_DEFAULT_MAX_TOKENS,
  messagesBody,
  messagesPromptProblem,
} from '../../../src/workload/apis/messages-body.js';
import { createWorkload } from '../../../src/workload/create-workload.js';

describe('messagesBody', () => {
  it('maps every chat field it carries to its Anthropic form, leaving the chat body as it was', () => {
    const chat = {
      model: 'claude',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'developer', content: [{ type: 'text', text: 'and kind' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: 'let me look',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{"at":"cat"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a cat' },
      ],
      max_completion_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
      prompt_cache_key: 's-abc-p0',
      temperature: 0.5,
      stop: 'END',
      user: 'u-7',
      tools: [{ type: 'function', function: { name: 'look', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'look' } },
      top_k: 5,
    };
    const before = structuredClone(chat);
    expect(messagesBody(chat)).toEqual({
      model: 'claude',
      system: 'be brief\n\nand kind',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'let me look' },
            { type: 'tool_use', id: 'call_1', name: 'look', input: { at: 'cat' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'a cat' }] },
      ],
      max_tokens: 64,
      stream: true,
      temperature: 0.5,
      stop_sequences: ['END'],
      metadata: { user_id: 'u-7' },
      tools: [{ name: 'look', input_schema: { type: 'object' } }],
      tool_choice: { type: 'tool', name: 'look' },
      top_k: 5,
    });
    expect(chat).toEqual(before);
  });

  it('always sends max_tokens: the workload’s, else request_extra’s, else the documented default', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    expect(messagesBody({ model: 'm', messages })).toEqual({
      model: 'm',
      messages,
      max_tokens: MESSAGES_DEFAULT_MAX_TOKENS,
    });
    expect(MESSAGES_DEFAULT_MAX_TOKENS).toBe(4096);
    expect(messagesBody({ model: 'm', messages, max_tokens: 300 }).max_tokens).toBe(300);
    expect(messagesBody({ model: 'm', messages, max_tokens: 300, max_completion_tokens: 20 }).max_tokens).toBe(20);
  });

  it('maps tool_choice and parallel_tool_calls', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    const choice = (extra: Record<string, unknown>) => messagesBody({ model: 'm', messages, ...extra }).tool_choice;
    expect(choice({ tool_choice: 'auto' })).toEqual({ type: 'auto' });
    expect(choice({ tool_choice: 'required' })).toEqual({ type: 'any' });
    expect(choice({ tool_choice: 'none' })).toEqual({ type: 'none' });
    expect(choice({ parallel_tool_calls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(choice({ parallel_tool_calls: true })).toBeUndefined();
    expect(messagesBody({ model: 'm', messages, stop: ['a', 'b'] }).stop_sequences).toEqual(['a', 'b']);
  });

  it('refuses a prompt Anthropic cannot take', () => {
    for (const [messages, why] of [
      [
        [
          { role: 'user', content: 'hi' },
          { role: 'system', content: 'late' },
        ],
        'message 2 is a system message after the conversation began',
      ],
      [[{ role: 'system', content: 'only' }], 'needs at least one user or assistant message'],
    ] as const)
      expect(() => messagesBody({ model: 'm', messages })).toThrow(
        expect.objectContaining({ code: 'BAD_PROFILE', message: expect.stringContaining(why) }),
      );
  });

  it('refuses a dataset tool call whose arguments are no JSON object, and sends a server’s as {}', () => {
    const messages = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"cut' } }],
      },
      { role: 'tool', tool_call_id: 'c', content: 'r' },
    ] as const;
    expect(messagesPromptProblem(messages as unknown as ChatMessage[])).toBe(
      "message 2 has a tool call whose arguments are not a JSON object (Anthropic's tool_use input is one)",
    );
    expect(messagesPromptProblem([{ role: 'user', content: 'hi' }])).toBeNull();
    const body = messagesBody({ model: 'm', messages });
    expect((body.messages as { content: unknown }[])[1]?.content).toEqual([
      { type: 'tool_use', id: 'c', name: 'f', input: {} },
    ]);
  });
});

describe('a workload with api: messages', () => {
  it('sends the system prompt at the top level and synthetic images as base64 image blocks', () => {
    const profile = resolveProfileText(
      `scenarios:
  - name: s
    api: messages
    models: [m]
    requests: 2
    prompt: { input_tokens: 16, output_tokens: 8, system: "be brief", images: [{ width: 32, height: 32 }] }
`,
      'p.yaml',
    );
    const body = createWorkload(profile.scenarios[0]!, profile.groups[0]!).next(0).body;
    expect(body.system).toBe('be brief');
    expect(body.max_tokens).toBe(8);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.stream_options).toBeUndefined();
    const [turn] = body.messages as { role: string; content: { type: string; source?: Record<string, unknown> }[] }[];
    expect(turn?.role).toBe('user');
    expect(turn?.content.map((block) => block.type)).toEqual(['text', 'image']);
    expect(turn?.content[1]?.source).toMatchObject({ type: 'base64', media_type: 'image/png' });
  });
});
