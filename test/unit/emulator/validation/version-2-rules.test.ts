import { describe, expect, it } from 'vitest';
import { body, expectRejected, validate } from './expect-bad-request.js';

const call = (id: string, name = 'lookup') => ({ id, type: 'function', function: { name, arguments: '{}' } });
const assistant = (...ids: string[]) => ({ role: 'assistant', content: null, tool_calls: ids.map((id) => call(id)) });
const toolResult = (id: string) => ({ role: 'tool', tool_call_id: id, content: 'result' });
const user = (text = 'Go') => ({ role: 'user', content: text });
const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];

describe('validateChatRequest: version-2 rules (spec "Errors")', () => {
  it('accepts a well-formed tool conversation with parallel calls', () => {
    const request = validate(
      body({ tools, messages: [user(), assistant('a', 'b'), toolResult('b'), toolResult('a'), user('thanks')] }),
    );
    expect(request.messages).toHaveLength(5);
  });

  it('rule 1: a tool call without a tool message immediately following', () => {
    expectRejected(
      body({ messages: [user(), assistant('a'), user('well?')] }),
      'messages[1].tool_calls[0].id',
      /Tool call 'a' .* has no tool message immediately following/,
    );
    // Answered later, but not immediately: still invalid.
    expectRejected(
      body({ messages: [user(), assistant('a', 'b'), toolResult('a'), user('hm'), toolResult('b')] }),
      'messages[1].tool_calls[1].id',
      /Tool call 'b' .* no tool message immediately following/,
    );
    expectRejected(
      body({ messages: [user(), assistant('a')] }),
      'messages[1].tool_calls[0].id',
      /no tool message immediately following/,
    );
  });

  it('rule 2: a tool message for an id no earlier assistant message called', () => {
    expectRejected(
      body({ messages: [user(), toolResult('ghost')] }),
      'messages[1].tool_call_id',
      /tool_call_id 'ghost', which no earlier assistant message called/,
    );
    expectRejected(
      body({ messages: [user(), assistant('a'), toolResult('a'), toolResult('b')] }),
      'messages[3].tool_call_id',
      /tool_call_id 'b', which no earlier assistant message called/,
    );
  });

  it('rule 3: tool_choice without tools', () => {
    for (const choice of ['auto', 'none', 'required', { type: 'function', function: { name: 'lookup' } }]) {
      expectRejected(
        body({ tool_choice: choice }),
        'tool_choice',
        /'tool_choice' is set but the request has no 'tools'/,
      );
      expectRejected(body({ tools: [], tool_choice: choice }), 'tool_choice', /has no 'tools'/);
    }
    expect(validate(body({ tool_choice: null })).tool_choice).toBeUndefined();
  });

  it('rule 4: duplicate tool call ids in one request', () => {
    expectRejected(
      body({ messages: [user(), assistant('a', 'a'), toolResult('a')] }),
      'messages[1].tool_calls[1].id',
      /Duplicate tool call id 'a'/,
    );
    expectRejected(
      body({ messages: [user(), assistant('a'), toolResult('a'), user(), assistant('a'), toolResult('a')] }),
      'messages[4].tool_calls[0].id',
      /Duplicate tool call id 'a'/,
    );
  });
});

describe('validateChatRequest: strict schemas (rule 5 and Versioning 6(a))', () => {
  const strictFormat = (schema: unknown) =>
    body({ response_format: { type: 'json_schema', json_schema: { name: 'out', strict: true, schema } } });
  const strictTool = (parameters: unknown) =>
    body({ tools: [{ type: 'function', function: { name: 'f', strict: true, parameters } }] });
  const good = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      unit: { type: 'string', enum: ['c', 'f'] },
      level: { type: ['integer', 'null'], enum: [1, 2, null] },
      address: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      },
      tags: {
        type: 'array',
        items: { type: 'object', properties: { t: { type: 'string' } }, required: ['t'], additionalProperties: false },
      },
    },
    required: ['name', 'unit', 'level', 'address', 'tags'],
    additionalProperties: false,
  };

  it('accepts a schema that follows every strict rule, in response_format and in tools', () => {
    validate(strictFormat(good));
    validate(strictTool(good));
  });

  it('rule 5: every object level needs additionalProperties false', () => {
    const { additionalProperties: _root, ...rootOpen } = good;
    expectRejected(
      strictFormat(rootOpen),
      'response_format.json_schema.schema',
      /the object at '#' must set 'additionalProperties': false/,
    );
    const nestedOpen = structuredClone(good) as unknown as { properties: { address: Record<string, unknown> } };
    delete nestedOpen.properties.address['additionalProperties'];
    expectRejected(
      strictFormat(nestedOpen),
      'response_format.json_schema.schema',
      /the object at '#\/properties\/address' must set 'additionalProperties': false/,
    );
    const itemOpen = structuredClone(good) as unknown as { properties: { tags: { items: Record<string, unknown> } } };
    itemOpen.properties.tags.items['additionalProperties'] = true;
    expectRejected(
      strictTool(itemOpen),
      'tools[0].function.parameters',
      /tool 'f'.*'#\/properties\/tags\/items' must set 'additionalProperties': false/,
    );
    const inDefs = {
      ...good,
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
    };
    expectRejected(
      strictFormat(inDefs),
      'response_format.json_schema.schema',
      /'#\/\$defs\/point' must set 'additionalProperties': false/,
    );
  });

  it('6(a): every property listed in required', () => {
    const missing = { ...good, required: ['name', 'unit', 'address', 'tags'] };
    expectRejected(
      strictFormat(missing),
      'response_format.json_schema.schema',
      /the object at '#' must list every property in 'required'; missing 'level'/,
    );
    const nested = structuredClone(good) as unknown as { properties: { address: { required: string[] } } };
    nested.properties.address.required = [];
    expectRejected(
      strictTool(nested),
      'tools[0].function.parameters',
      /'#\/properties\/address' must list every property in 'required'; missing 'city'/,
    );
  });

  it('6(a): enum values match the property type', () => {
    const wrong = structuredClone(good) as unknown as { properties: { unit: { enum: unknown[] } } };
    wrong.properties.unit.enum = ['c', 3];
    expectRejected(
      strictFormat(wrong),
      'response_format.json_schema.schema',
      /enum value 3 at '#\/properties\/unit' does not match the type 'string'/,
    );
    const integer = structuredClone(good) as unknown as { properties: { level: { enum: unknown[] } } };
    integer.properties.level.enum = [1, 2.5];
    expectRejected(
      strictTool(integer),
      'tools[0].function.parameters',
      /enum value 2.5 at '#\/properties\/level' does not match the type 'integer' or 'null'/,
    );
  });

  it('applies none of these rules without strict true', () => {
    const loose = { type: 'object', properties: { a: { type: 'string', enum: [1] } } };
    validate(
      body({ response_format: { type: 'json_schema', json_schema: { name: 'out', strict: false, schema: loose } } }),
    );
    validate(body({ tools: [{ type: 'function', function: { name: 'f', parameters: loose } }] }));
  });
});
