/**
 * The answer checks of one record (measure/answer-checks.ts) against what its body asked for
 * (measure/answer-validators.ts): valid arguments, a wrong type, a missing required field, bad JSON, an
 * unknown tool, json_schema and json_object answers, a cut-off answer; and each schema compiled once
 * however many requests share it.
 */
import { describe, expect, it } from 'vitest';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import { isInferbenchError } from '../../../src/errors.js';
import { answerChecks } from '../../../src/measure/answer-checks.js';
import { type AnswerExpectation, AnswerValidators } from '../../../src/measure/answer-validators.js';

const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
  required: ['city', 'days'],
  additionalProperties: false,
};
const TOOLS = [
  { type: 'function', function: { name: 'get_weather', parameters: WEATHER } },
  { type: 'function', function: { name: 'ping' } },
];
const REPORT_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'report',
    strict: true,
    schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { title: { type: 'string' }, score: { type: 'number' } },
      required: ['title', 'score'],
      additionalProperties: false,
    },
  },
};

function record(fill: Partial<RequestRecord>): RequestRecord {
  return Object.assign(createRequestRecord(0, 0, 0), { status: 200, finishReason: 'stop' }, fill);
}

function expectation(body: Record<string, unknown>): AnswerExpectation {
  const found = new AnswerValidators().expectation(body, 'scenario s');
  if (found === null) throw new Error('no expectation');
  return found;
}

const tools = expectation({ tools: TOOLS });
const calls = (...list: [string, string][]): Partial<RequestRecord> => ({
  toolCalls: list.map(([name, args], i) => ({ id: `call_${i}`, name, arguments: args })),
  finishReason: 'tool_calls',
});

describe('answer checks: tool_arguments', () => {
  it('passes arguments that validate, for every call (a tool without parameters takes any object)', () => {
    const checks = answerChecks(record(calls(['get_weather', '{"city":"Oslo","days":3}'], ['ping', '{}'])), tools);
    expect(checks).toEqual([{ name: 'tool_arguments', passed: true, message: null }]);
  });

  it('fails a wrong type, a missing required field, bad JSON and an unknown tool, saying which', () => {
    const failure = (...list: [string, string][]): string | null | undefined =>
      answerChecks(record(calls(...list)), tools)?.[0]?.message;
    expect(failure(['get_weather', '{"city":"Oslo","days":"3"}'])).toBe('get_weather: arguments /days must be integer');
    expect(failure(['get_weather', '{"city":"Oslo"}'])).toBe(
      "get_weather: arguments / must have required property 'days'",
    );
    expect(failure(['get_weather', '{"city":"Oslo","days":'])).toMatch(/^get_weather: arguments not JSON \(/);
    expect(failure(['ping', '{}'], ['get_forecast', '{}'])).toBe('unknown tool "get_forecast"');
    expect(failure(['ping', '[1]'])).toBe('ping: arguments is not a JSON object');
    const checks = answerChecks(record(calls(['get_weather', '{"city":1,"days":1}'])), tools);
    expect(checks?.[0]?.passed).toBe(false);
  });

  it('says an answer cut off by finish_reason length failed for that reason', () => {
    const cut = record({ ...calls(['get_weather', '{"city":"Os']), finishReason: 'length' });
    expect(answerChecks(cut, tools)?.[0]?.message).toMatch(
      /^answer cut off \(finish_reason length\): get_weather: arguments not JSON/,
    );
  });

  it('checks nothing for an answer without tool calls, or a failed request', () => {
    expect(answerChecks(record({ content: 'It is sunny.' }), tools)).toBeNull();
    const failed = record({ ...calls(['get_weather', 'oops']), errorClass: 'stream_error', status: 200 });
    expect(answerChecks(failed, tools)).toBeNull();
  });
});

describe('answer checks: json_schema', () => {
  const schema = expectation({ response_format: REPORT_FORMAT });
  const objectOnly = expectation({ response_format: { type: 'json_object' } });

  it('passes content that validates against the schema ($schema draft-07 accepted)', () => {
    expect(answerChecks(record({ content: '{"title":"ok","score":0.5}' }), schema)).toEqual([
      { name: 'json_schema', passed: true, message: null },
    ]);
  });

  it('fails non-conforming content, bad JSON and an empty answer', () => {
    const message = (content: string): string | null | undefined =>
      answerChecks(record({ content }), schema)?.[0]?.message;
    expect(message('{"title":"ok","score":"high"}')).toBe('content /score must be number');
    expect(message('{"title":"ok","score":1,"extra":true}')).toBe('content / must NOT have additional properties');
    expect(message('Sure! {"title":"ok"}')).toMatch(/^content not JSON \(/);
    expect(message('')).toBe('content empty answer');
  });

  it('json_object: the content must parse to an object', () => {
    expect(answerChecks(record({ content: '{"a":[1,2]}' }), objectOnly)?.[0]?.passed).toBe(true);
    expect(answerChecks(record({ content: '[1,2]' }), objectOnly)?.[0]?.message).toBe('content is not a JSON object');
  });

  it('says a JSON answer cut off by finish_reason length failed for that reason', () => {
    const cut = record({ content: '{"title":"o', finishReason: 'length' });
    expect(answerChecks(cut, schema)?.[0]?.message).toMatch(
      /^answer cut off \(finish_reason length\): content not JSON/,
    );
  });
});

describe('answer validators', () => {
  it('compile each schema once, whatever the number of requests that share it', () => {
    const validators = new AnswerValidators();
    const request = { tools: TOOLS, response_format: REPORT_FORMAT };
    const first = validators.expectation({ model: 'a', ...request }, 's');
    for (let i = 0; i < 1000; i += 1) {
      expect(validators.expectation({ model: 'a', messages: [i], ...request }, 's')).toBe(first);
    }
    // WEATHER and the report schema; `ping` has no parameters schema to compile.
    expect(validators.compilations).toBe(2);
    // Another tools array naming the same schema object compiles nothing new.
    validators.expectation({ tools: [TOOLS[0]] }, 's');
    expect(validators.compilations).toBe(2);
  });

  it('needs nothing for a body with no tools and no JSON response_format', () => {
    const validators = new AnswerValidators();
    expect(validators.expectation({ model: 'a', response_format: { type: 'text' } }, 's')).toBeNull();
    expect(validators.expectation({ model: 'a', tools: [] }, 's')).toBeNull();
    expect(validators.compilations).toBe(0);
  });

  it('a schema that does not compile is BAD_PROFILE naming the scenario and the field', () => {
    const validators = new AnswerValidators();
    const bad = {
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', required: 'x' } } }],
    };
    try {
      validators.expectation(bad, 'scenario tools');
      expect.unreachable();
    } catch (error) {
      expect(isInferbenchError(error) && error.code).toBe('BAD_PROFILE');
      expect((error as Error).message).toMatch(/^scenario tools: request\.tools\[0\]\.function\.parameters: /);
    }
  });
});
