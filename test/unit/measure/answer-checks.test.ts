/**
 * The answer checks of one record (measure/answer-checks.ts) against what its body asked for
 * (measure/answer-validators.ts): valid arguments, a wrong type, a missing required field, bad JSON, an
 * unknown tool, json_schema and json_object answers, a cut-off answer; each schema compiled once
 * however many requests share it (a broken one too); nothing checked with n > 1; the content kept only
 * for requests whose check reads it.
 */
import { describe, expect, it } from 'vitest';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import { isInferbenchError } from '../../../src/errors.js';
import { answerChecks } from '../../../src/measure/answer-checks.js';
import {
  type AnswerExpectation,
  AnswerValidators,
  asksForAnswerChecks,
} from '../../../src/measure/answer-validators.js';
import { AnswerCheckStage } from '../../../src/runner/answer-check-stage.js';

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

  it('checks nothing of a request asking for several choices (n > 1: the choices are pooled into one record)', () => {
    const validators = new AnswerValidators();
    expect(validators.expectation({ tools: TOOLS, n: 2 }, 's')).toBeNull();
    expect(validators.expectation({ response_format: REPORT_FORMAT, n: 3 }, 's')).toBeNull();
    expect(asksForAnswerChecks({ tools: TOOLS, n: 2 })).toBe(false);
    // n: 1 is one choice, checked as without n.
    expect(validators.expectation({ tools: TOOLS, n: 1 }, 's')).not.toBeNull();
    expect(asksForAnswerChecks({ tools: TOOLS, n: 1 })).toBe(true);
  });

  it('a schema that fails to compile mid-run is compiled once: later launches get the cached failure', () => {
    const validators = new AnswerValidators();
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', required: 'x' } } }];
    const failure = (): unknown => {
      try {
        validators.expectation({ model: 'm', tools }, 'scenario s');
      } catch (error) {
        return error;
      }
      return null;
    };
    const first = failure();
    expect(isInferbenchError(first) && first.code).toBe('BAD_PROFILE');
    // The same error object: nothing was compiled again (a new compile would throw a new error).
    for (let i = 0; i < 100; i += 1) expect(failure()).toBe(first);
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

describe('answer check stage: content kept only when a check reads it', () => {
  const launched = (body: Record<string, unknown>): RequestRecord => {
    const rec = createRequestRecord(0, 0, 0);
    new AnswerCheckStage().expect(rec, body, 's');
    return rec;
  };

  it('json_schema / json_object answers keep their content; tools-only, plain and n > 1 requests keep none', () => {
    expect(launched({ response_format: REPORT_FORMAT }).keepContent).toBe(true);
    expect(launched({ response_format: { type: 'json_object' } }).keepContent).toBe(true);
    expect(launched({ tools: TOOLS }).keepContent).toBe(false);
    expect(launched({ model: 'm' }).keepContent).toBe(false);
    expect(launched({ response_format: REPORT_FORMAT, n: 2 }).keepContent).toBe(false);
  });
});
