import { describe, expect, it } from 'vitest';
import { textModel } from '../generation/model-fixtures.js';
import { body, expectRejected, validate } from './expect-bad-request.js';

const asksJson = [
  { role: 'system', content: 'Answer in JSON.' },
  { role: 'user', content: 'List three colours.' },
];

describe('validateChatRequest: response_format', () => {
  it('accepts the three forms', () => {
    expect(validate(body({ response_format: { type: 'text' } })).response_format).toEqual({ type: 'text' });
    expect(validate(body({ messages: asksJson, response_format: { type: 'json_object' } })).response_format).toEqual({
      type: 'json_object',
    });
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const request = validate(
      body({ response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } } }),
    );
    expect(request.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema, strict: false },
    });
  });

  it('rejects an unknown type', () => {
    expectRejected(
      body({ response_format: { type: 'xml' } }),
      'response_format.type',
      /'text', 'json_schema' or 'json_object'/,
    );
    expectRejected(body({ response_format: 'json' }), 'response_format', /must be an object/);
  });

  it('json_object: not with stream true (rule 3)', () => {
    expect(validate(body({ messages: asksJson, stream: false, response_format: { type: 'json_object' } })).stream).toBe(
      false,
    );
    expectRejected(
      body({ messages: asksJson, stream: true, response_format: { type: 'json_object' } }),
      'response_format',
      /cannot be used with 'stream': true/,
    );
  });

  it('json_object: needs a system or user message that asks for JSON', () => {
    expectRejected(body({ response_format: { type: 'json_object' } }), 'messages', /asks for JSON/);
    validate(
      body({
        messages: [{ role: 'user', content: [{ type: 'text', text: 'reply as json please' }] }],
        response_format: { type: 'json_object' },
      }),
    );
  });

  it('json_schema: needs a valid name and an object schema', () => {
    expectRejected(
      body({ response_format: { type: 'json_schema' } }),
      'response_format.json_schema',
      /must be an object/,
    );
    expectRejected(
      body({ response_format: { type: 'json_schema', json_schema: { schema: {} } } }),
      'response_format.json_schema.name',
      /must be a string/,
    );
    expectRejected(
      body({ response_format: { type: 'json_schema', json_schema: { name: 'bad name' } } }),
      'response_format.json_schema.name',
      /1 to 64 characters/,
    );
    expectRejected(
      body({ response_format: { type: 'json_schema', json_schema: { name: 'a', schema: [] } } }),
      'response_format.json_schema.schema',
      /must be an object/,
    );
    expectRejected(
      body({ response_format: { type: 'json_schema', json_schema: { name: 'a', strict: 'yes' } } }),
      'response_format.json_schema.strict',
      /must be a boolean/,
    );
  });

  it('refuses formats the model does not support', () => {
    const plain = {
      ...textModel,
      capabilities: { ...textModel.capabilities, json_mode: false, structured_outputs: false },
    };
    expectRejected(
      body({ messages: asksJson, response_format: { type: 'json_object' } }),
      'response_format',
      /does not support the 'json_object'/,
      { model: plain },
    );
    expectRejected(
      body({ response_format: { type: 'json_schema', json_schema: { name: 'a' } } }),
      'response_format',
      /does not support the 'json_schema'/,
      { model: plain },
    );
  });
});
