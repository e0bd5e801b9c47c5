import { describe, expect, it } from 'vitest';
import { textModel } from '../generation/model-fixtures.js';
import { body, expectRejected, validate } from './expect-bad-request.js';

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  type: 'function',
  function: {
    name,
    description: 'A tool',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
    ...extra,
  },
});

describe('validateChatRequest: tools and tool_choice', () => {
  it('function names: up to 64 characters from a-zA-Z0-9_-', () => {
    expect(validate(body({ tools: [tool('a'.repeat(64))] })).tools).toHaveLength(1);
    validate(body({ tools: [tool('get_weather-v2_OK')] }));
    expectRejected(body({ tools: [tool('a'.repeat(65))] }), 'tools[0].function.name', /1 to 64 characters/);
    expectRejected(body({ tools: [tool('get weather')] }), 'tools[0].function.name', /1 to 64 characters/);
    expectRejected(body({ tools: [tool('get.weather')] }), 'tools[0].function.name', /1 to 64 characters/);
    expectRejected(body({ tools: [tool('')] }), 'tools[0].function.name', /1 to 64 characters/);
  });

  it('tool definitions: type function, parameters an object schema, unique names', () => {
    expectRejected(
      body({ tools: [{ type: 'retrieval', function: { name: 'x' } }] }),
      'tools[0].type',
      /only functions are supported/,
    );
    expectRejected(body({ tools: [{ type: 'function' }] }), 'tools[0].function', /must be an object/);
    expectRejected(
      body({ tools: [tool('f', { parameters: 'none' })] }),
      'tools[0].function.parameters',
      /must be an object/,
    );
    expectRejected(
      body({ tools: [tool('f', { parameters: { type: 'string' } })] }),
      'tools[0].function.parameters',
      /type 'object'/,
    );
    expectRejected(
      body({ tools: [tool('f', { description: 5 })] }),
      'tools[0].function.description',
      /must be a string/,
    );
    expectRejected(body({ tools: [tool('f'), tool('f')] }), 'tools[1].function.name', /must be unique/);
    expectRejected(body({ tools: { name: 'f' } }), 'tools', /must be an array/);
    validate(body({ tools: [{ type: 'function', function: { name: 'no_params' } }] }));
  });

  it('refuses tools on a model without tool support', () => {
    const noTools = {
      ...textModel,
      capabilities: { ...textModel.capabilities, tools: false, function_calling: false },
    };
    expectRejected(body({ tools: [tool('f')] }), 'tools', /does not support tools/, { model: noTools });
  });

  it('tool_choice forms', () => {
    for (const choice of ['none', 'auto', 'required'])
      expect(validate(body({ tools: [tool('f')], tool_choice: choice })).tool_choice).toBe(choice);
    const named = validate(
      body({ tools: [tool('f'), tool('g')], tool_choice: { type: 'function', function: { name: 'g' } } }),
    );
    expect(named.tool_choice).toEqual({ type: 'function', function: { name: 'g' } });
    expectRejected(
      body({ tools: [tool('f')], tool_choice: 'always' }),
      'tool_choice',
      /'none', 'auto', 'required' or a function object/,
    );
    expectRejected(
      body({ tools: [tool('f')], tool_choice: { type: 'function', function: { name: 'h' } } }),
      'tool_choice.function.name',
      /'h', which is not among the request's tools/,
    );
    expectRejected(
      body({ tools: [tool('f')], tool_choice: { type: 'tool', function: { name: 'f' } } }),
      'tool_choice.type',
      /must be 'function'/,
    );
    expectRejected(
      body({ tools: [tool('f')], tool_choice: { type: 'function' } }),
      'tool_choice.function',
      /must be an object/,
    );
  });
});
