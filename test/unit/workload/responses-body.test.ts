/**
 * The Responses body from the chat body the workload built: one user text as the `input` string, other
 * prompts as input items (system, images as input_image, a tool history as function_call and
 * function_call_output items), max_completion_tokens as max_output_tokens, tools flat (strict false unless
 * set), a named tool_choice flat, response_format as text.format, reasoning_effort as reasoning.effort,
 * stream_options never sent, the chat body untouched; and a workload with a system prompt and tools built
 * in that shape.
 */
import type { ResponseCreateParamsStreaming, ResponseInput } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { responsesBody } from '../../../src/workload/apis/responses-body.js';
import { o200kTokenizer } from '../../../src/util/tokenizer.js';
import { createWorkload } from '../../../src/workload/create-workload.js';

describe('responsesBody', () => {
  it('sends one user text as the input string, max_output_tokens, and never stream_options', () => {
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
    expect(responsesBody(chat)).toEqual({
      model: 'm',
      input: 'hello there',
      max_output_tokens: 64,
      stream: true,
      temperature: 0,
      service_tier: 'flex',
      prompt_cache_key: 'p3',
    });
    expect(chat).toEqual(before);
  });

  it('sends other prompts as input items: roles, images, and a tool history', () => {
    const body = responsesBody({
      model: 'm',
      messages: [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
            { type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"at":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a cat' },
        { role: 'assistant', content: 'A cat.' },
        { role: 'user', content: 'sure?' },
      ],
    });
    // Typed by the openai SDK: each item is one of its input item shapes.
    const expected: ResponseInput = [
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'what is this?' },
          { type: 'input_image', image_url: 'data:image/png;base64,AA', detail: 'auto' },
          { type: 'input_image', image_url: 'https://x/y.png', detail: 'low' },
        ],
      },
      { type: 'function_call', call_id: 'c1', name: 'look', arguments: '{"at":1}' },
      { type: 'function_call_output', call_id: 'c1', output: 'a cat' },
      { role: 'assistant', content: 'A cat.' },
      { role: 'user', content: 'sure?' },
    ];
    expect(body.input).toEqual(expected);
    expect(body.messages).toBeUndefined();
  });

  it('flattens tools and a named tool_choice, and moves response_format and reasoning_effort', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const body = responsesBody({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'd', parameters: schema } },
        { type: 'function', function: { name: 'strict_one', parameters: schema, strict: true } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
      reasoning_effort: 'low',
    });
    // Typed by the openai SDK: the field names and shapes of its create params.
    const expected: ResponseCreateParamsStreaming = {
      model: 'm',
      stream: true,
      input: 'weather?',
      tools: [
        { type: 'function', name: 'get_weather', description: 'd', parameters: schema, strict: false },
        { type: 'function', name: 'strict_one', parameters: schema, strict: true },
      ],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'city', schema, strict: true } },
      reasoning: { effort: 'low' },
    };
    expect(body).toEqual(expected);
    // Every request of a scenario shares the profile's objects, and so these (the answer checks cache by them).
    const chat = {
      model: 'm',
      messages: [],
      tools: [{ type: 'function', function: { name: 'f' } }],
      response_format: { type: 'json_object' },
    };
    expect(responsesBody(chat).tools).toBe(responsesBody(chat).tools);
    expect(responsesBody(chat).text).toBe(responsesBody(chat).text);
    expect(responsesBody({ model: 'm', messages: [], response_format: { type: 'json_object' } }).text).toEqual({
      format: { type: 'json_object' },
    });
    expect(responsesBody({ model: 'm', messages: [], tool_choice: 'required' }).tool_choice).toBe('required');
  });
});

describe('a workload with api: responses', () => {
  it('builds every request in the Responses shape, token-exact input from the chat messages', () => {
    const profile = resolveProfileText(
      `scenarios:
  - name: s
    api: responses
    models: [m]
    requests: 2
    prompt: { input_tokens: 40, output_tokens: 8, system: be brief }
    request:
      tools: [{ type: function, function: { name: f, parameters: { type: object } } }]
`,
      'p.yaml',
    );
    const { body, expectedInputTokens } = createWorkload(profile.scenarios[0]!, profile.groups[0]!).next(0);
    expect(body).toMatchObject({
      model: 'm',
      max_output_tokens: 8,
      stream: true,
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: false }],
    });
    expect(body.stream_options).toBeUndefined();
    expect(body.max_completion_tokens).toBeUndefined();
    const input = body.input as { role: string; content: string }[];
    expect(input.map((item) => item.role)).toEqual(['system', 'user']);
    expect(input[0]?.content).toBe('be brief');
    // Token-exact: the user text is the 40 tokens asked for, the system prompt's own on top.
    const tokenizer = o200kTokenizer();
    expect(tokenizer.count(input[1]?.content ?? '')).toBe(40);
    expect(expectedInputTokens).toBe(40 + tokenizer.count('be brief'));
  });
});
