import { describe, expect, it } from 'vitest';
import { plan } from './plan-helpers.js';
import { reasoningModel } from './model-fixtures.js';
import { schemaErrors } from './schema-validator.js';

const weatherParameters = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 14 },
  },
  required: ['city', 'unit'],
  additionalProperties: false,
};
const searchParameters = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    filters: {
      type: 'array',
      items: { type: 'string', enum: ['news', 'images', 'video'] },
      minItems: 1,
      maxItems: 2,
      uniqueItems: true,
    },
    limit: { type: ['integer', 'null'], minimum: 1, maximum: 50 },
  },
  required: ['query', 'filters', 'limit'],
  additionalProperties: false,
};
const tools = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: weatherParameters } },
  {
    type: 'function',
    function: { name: 'web_search', description: 'Search', parameters: searchParameters, strict: true },
  },
  { type: 'function', function: { name: 'ping' } },
];
const ask = (text: string) => [{ role: 'user', content: text }];
const parametersOf = (name: string) =>
  tools.find((t) => t.function.name === name)!.function.parameters ?? { type: 'object' };

describe('planCompletion: tool calls', () => {
  it('auto calls the tool the user names, with arguments valid against its schema', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const result = plan({ seed, tools, messages: ask('What is the get_weather for Paris?') });
      expect(result.finishReason).toBe('tool_calls');
      expect(result.content).toBeNull();
      expect(result.toolCalls).toHaveLength(1);
      const call = result.toolCalls![0]!;
      expect(call.type).toBe('function');
      expect(call.function.name).toBe('get_weather');
      expect(call.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
      expect(schemaErrors(weatherParameters, JSON.parse(call.function.arguments))).toBeNull();
    }
  });

  it('parallel_tool_calls true calls each named tool; false calls one', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const both = plan({ seed, tools, messages: ask('Use web_search and get_weather please') });
      expect(both.toolCalls!.map((c) => c.function.name)).toEqual(['get_weather', 'web_search']);
      expect(schemaErrors(searchParameters, JSON.parse(both.toolCalls![1]!.function.arguments))).toBeNull();
      expect(new Set(both.toolCalls!.map((c) => c.id)).size).toBe(2);
      const one = plan({
        seed,
        tools,
        parallel_tool_calls: false,
        messages: ask('Use web_search and get_weather please'),
      });
      expect(one.toolCalls!.map((c) => c.function.name)).toEqual(['get_weather']);
    }
  });

  it('auto answers with text when the user neither names a tool nor asks to call or use one', () => {
    const result = plan({ seed: 1, tools, messages: ask('Tell me a story about rivers') });
    expect(result.toolCalls).toBeNull();
    expect(result.finishReason).toBe('stop');
    const action = plan({ seed: 1, tools, messages: ask('Please call something') });
    expect(action.toolCalls!.map((c) => c.function.name)).toEqual(['get_weather']);
  });

  it('answers with text after a tool message', () => {
    const messages = [
      ...ask('Call get_weather for Paris'),
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"temp": 20}' },
    ];
    const result = plan({ seed: 2, tools, messages });
    expect(result.toolCalls).toBeNull();
    expect(result.content!.length).toBeGreaterThan(0);
    expect(result.finishReason).toBe('stop');
  });

  it('required forces a call (the first tool when none is named); named forces that one; none never calls', () => {
    const required = plan({ seed: 3, tools, tool_choice: 'required', messages: ask('Tell me a story') });
    expect(required.toolCalls!.map((c) => c.function.name)).toEqual(['get_weather']);
    const named = plan({
      seed: 3,
      tools,
      tool_choice: { type: 'function', function: { name: 'ping' } },
      messages: ask('get_weather now'),
    });
    expect(named.toolCalls!.map((c) => c.function.name)).toEqual(['ping']);
    expect(named.toolCalls![0]!.function.arguments).toBe('{}');
    const none = plan({ seed: 3, tools, tool_choice: 'none', messages: ask('call get_weather') });
    expect(none.toolCalls).toBeNull();
  });

  it('is deterministic by seed', () => {
    const a = plan({ seed: 11, tools, messages: ask('use web_search') });
    const b = plan({ seed: 11, tools, messages: ask('use web_search') });
    const c = plan({ seed: 12, tools, messages: ask('use web_search') });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a.toolCalls)).not.toBe(JSON.stringify(c.toolCalls));
  });

  it('a cap cuts the arguments with finish_reason length', () => {
    const result = plan({ seed: 5, tools, max_completion_tokens: 3, messages: ask('use web_search') });
    expect(result.finishReason).toBe('length');
    expect(result.tokens).toHaveLength(3);
    expect(() => JSON.parse(result.toolCalls![0]!.function.arguments)).toThrow();
  });

  it('a reasoning model reasons before calling', () => {
    const result = plan({ seed: 5, tools, messages: ask('use get_weather') }, reasoningModel);
    expect(result.reasoningTokens).toBeGreaterThan(0);
    expect(result.toolCalls).toHaveLength(1);
    expect(schemaErrors(parametersOf('get_weather'), JSON.parse(result.toolCalls![0]!.function.arguments))).toBeNull();
  });
});
