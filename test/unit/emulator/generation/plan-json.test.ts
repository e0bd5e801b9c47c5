import { describe, expect, it } from 'vitest';
import { planCompletion } from '../../../../src/emulator/generation/plan-completion.js';
import { schemaValue } from '../../../../src/emulator/generation/schema-value.js';
import { createRng } from '../../../../src/util/rng.js';
import { countTokens } from '../../../../src/util/tokenizer.js';
import { textModel } from './model-fixtures.js';
import { plan } from './plan-helpers.js';
import { schemaErrors } from './schema-validator.js';

const SCHEMAS: Record<string, Record<string, unknown>> = {
  flat: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      age: { type: 'integer', minimum: 0, maximum: 120 },
      active: { type: 'boolean' },
      note: { type: 'null' },
    },
    required: ['name', 'age', 'active', 'note'],
    additionalProperties: false,
  },
  optionalAndNested: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      created: { type: 'string', format: 'date-time' },
      contact: {
        type: 'object',
        properties: { email: { type: 'string', format: 'email' }, site: { type: 'string', format: 'uri' } },
        required: ['email'],
        additionalProperties: false,
      },
      score: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      price: { type: 'number', minimum: 1, maximum: 99, multipleOf: 0.5 },
      count: { type: 'integer', minimum: 10, maximum: 100, multipleOf: 7 },
    },
    required: ['id', 'contact'],
    additionalProperties: false,
  },
  arrays: {
    type: 'object',
    properties: {
      tags: { type: 'array', items: { type: 'string', minLength: 3, maxLength: 8 }, minItems: 2, maxItems: 4 },
      matrix: {
        type: 'array',
        items: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 2 },
        maxItems: 3,
      },
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false, minItems: 2 },
      colours: { type: 'array', items: { enum: ['red', 'green', 'blue'] }, uniqueItems: true, minItems: 3 },
      empty: { type: 'array', items: { type: 'string' }, maxItems: 0 },
    },
    required: ['tags', 'matrix', 'pair', 'colours', 'empty'],
    additionalProperties: false,
  },
  enumsConstsUnions: {
    type: 'object',
    properties: {
      kind: { const: 'event' },
      level: { enum: ['low', 'mid', 'high'] },
      value: { anyOf: [{ type: 'string' }, { type: 'number', minimum: 5, maximum: 6 }] },
      shape: {
        oneOf: [
          {
            type: 'object',
            properties: { circle: { type: 'number', minimum: 0 } },
            required: ['circle'],
            additionalProperties: false,
          },
          {
            type: 'object',
            properties: { square: { type: 'integer', minimum: 0 } },
            required: ['square'],
            additionalProperties: false,
          },
        ],
      },
      maybe: { type: ['string', 'null'] },
      merged: {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'boolean' } }, required: ['b'] },
        ],
      },
    },
    required: ['kind', 'level', 'value', 'shape', 'maybe', 'merged'],
    additionalProperties: false,
  },
  refs: {
    type: 'object',
    $defs: {
      point: {
        type: 'object',
        properties: { x: { type: 'number' }, y: { type: 'number' } },
        required: ['x', 'y'],
        additionalProperties: false,
      },
      node: {
        type: 'object',
        properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
        required: ['label', 'children'],
        additionalProperties: false,
      },
    },
    properties: {
      origin: { $ref: '#/$defs/point' },
      path: { type: 'array', items: { $ref: '#/$defs/point' } },
      tree: { $ref: '#/$defs/node' },
    },
    required: ['origin', 'path', 'tree'],
    additionalProperties: false,
  },
  map: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 }, minProperties: 1 },
};

const asksJson = [{ role: 'user', content: 'Reply in JSON.' }];

describe('planCompletion: structured outputs', () => {
  it.each(Object.entries(SCHEMAS))(
    'json_schema %s: output is valid against the schema for many seeds',
    (name, schema) => {
      for (let seed = 1; seed <= 40; seed++) {
        const result = plan({ seed, response_format: { type: 'json_schema', json_schema: { name, schema } } });
        expect(result.finishReason).toBe('stop');
        const value = JSON.parse(result.content!);
        expect(schemaErrors(schema, value), `${name} seed ${seed}: ${result.content}`).toBeNull();
        expect(countTokens(result.content!)).toBe(result.tokens.length);
      }
    },
  );

  it('schema values vary with the seed', () => {
    const outputs = new Set<string>();
    for (let seed = 1; seed <= 10; seed++) outputs.add(JSON.stringify(schemaValue(SCHEMAS['flat']!, createRng(seed))));
    expect(outputs.size).toBeGreaterThan(5);
  });

  it('json_object: a valid JSON object', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const result = plan({ seed, messages: asksJson, response_format: { type: 'json_object' } });
      const value = JSON.parse(result.content!) as unknown;
      expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
      expect(Object.keys(value as object).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('a length cap may end the JSON mid-value, with finish_reason length', () => {
    const result = plan({
      seed: 1,
      max_completion_tokens: 5,
      response_format: { type: 'json_schema', json_schema: { name: 'flat', schema: SCHEMAS['flat'] } },
    });
    expect(result.tokens).toHaveLength(5);
    expect(result.finishReason).toBe('length');
    expect(() => JSON.parse(result.content!)).toThrow();
  });

  it('stop cuts JSON too and keeps usage exact', () => {
    const schema = SCHEMAS['flat']!;
    const full = plan({ seed: 2, response_format: { type: 'json_schema', json_schema: { name: 'flat', schema } } })
      .content!;
    const result = plan({
      seed: 2,
      stop: '"age',
      response_format: { type: 'json_schema', json_schema: { name: 'flat', schema } },
    });
    expect(result.content).toBe(full.slice(0, full.indexOf('"age')));
    expect(result.finishReason).toBe('stop');
    expect(countTokens(result.content!)).toBe(result.tokens.length);
  });

  it('without a schema, json_schema still gives a JSON object', () => {
    const request = {
      model: 'm',
      messages: [{ role: 'user' as const, content: 'x' }],
      seed: 3,
      response_format: { type: 'json_schema' as const, json_schema: { name: 'any' } },
    };
    const result = planCompletion(request, textModel, 1);
    expect(typeof JSON.parse(result.content!)).toBe('object');
  });
});

describe('structured outputs from the openai SDK helpers (zod schemas)', () => {
  it('zodResponseFormat and zodFunction pass strict validation and get valid output', async () => {
    const { z } = await import('zod');
    const { zodFunction, zodResponseFormat } = await import('openai/helpers/zod');
    const Step = z.object({ explanation: z.string(), output: z.string() });
    const Answer = z.object({
      steps: z.array(Step),
      final_answer: z.string(),
      kind: z.enum(['proof', 'estimate']),
      confidence: z.number().int().nullable(),
      note: z.string().optional().nullable(),
      check: Step,
    });
    const responseFormat = zodResponseFormat(Answer, 'math_answer');
    const schema = (responseFormat as unknown as { json_schema: { schema: Record<string, unknown> } }).json_schema
      .schema;
    for (let seed = 1; seed <= 25; seed++) {
      const result = plan({ seed, response_format: responseFormat });
      const value = JSON.parse(result.content!) as { confidence: unknown };
      expect(schemaErrors(schema, value), result.content!).toBeNull();
      if (typeof value.confidence === 'number') expect(Math.abs(value.confidence)).toBeLessThanOrEqual(100);
    }
    const weather = zodFunction({
      name: 'get_weather',
      parameters: z.object({ city: z.string(), unit: z.enum(['c', 'f']).nullable() }),
    });
    const call = plan({ seed: 1, tools: [weather], messages: [{ role: 'user', content: 'use get_weather' }] })
      .toolCalls![0]!;
    expect(schemaErrors(weather.function.parameters as object, JSON.parse(call.function.arguments))).toBeNull();
  });
});
