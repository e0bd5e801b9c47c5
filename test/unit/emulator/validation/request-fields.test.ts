import { describe, expect, it } from 'vitest';
import { textModel } from '../generation/model-fixtures.js';
import { body, expectRejected, validate } from './expect-bad-request.js';

/** The text fixture with `prediction` among its supported parameters (no built-in model has it). */
const predictingModel = { ...textModel, supportedParameters: ['prediction'] };

describe('validateChatRequest: body and top-level fields', () => {
  it('accepts a minimal request and returns it typed', () => {
    const request = validate(body());
    expect(request.model).toBe('test-text');
    expect(request.messages).toHaveLength(1);
  });

  it('rejects a body that is not an object', () => {
    for (const bad of [null, [], 'text', 42]) expectRejected(bad, null, /must be a JSON object/);
  });

  it('requires model as a string and messages as a non-empty array', () => {
    expectRejected({ messages: [{ role: 'user', content: 'x' }] }, 'model', /'model' is required/);
    expectRejected(body({ model: 7 }), 'model', /'model' must be a string/);
    expectRejected({ model: 'm' }, 'messages', /'messages' is required/);
    expectRejected(body({ messages: [] }), 'messages', /at least one message/);
    expectRejected(body({ messages: 'hi' }), 'messages', /must be an array/);
  });

  it('rejects unknown fields by name and accepts the extras real clients send', () => {
    expectRejected(body({ temprature: 1 }), 'temprature', /Unknown parameter 'temprature'/);
    const request = validate(
      body({
        stream: true,
        stream_options: { include_usage: true },
        n: 1,
        metadata: { team: 'perf' },
        store: false,
        reasoning_format: null,
      }),
    );
    expect(request.stream_options).toEqual({ include_usage: true });
    expectRejected(body({ n: 2 }), 'n', /'n' must be 1/);
    expectRejected(body({ stream_options: 'yes' }), 'stream_options', /must be an object/);
    expectRejected(body({ metadata: { a: 1 } }), 'metadata.a', /must be a string/);
  });

  it.each([
    ['temperature', 0, 2],
    ['top_p', 0, 1],
    ['frequency_penalty', -2, 2],
    ['presence_penalty', -2, 2],
  ])('%s accepts %d..%d and rejects just outside', (field, min, max) => {
    expect(validate(body({ [field]: min }))[field as 'temperature']).toBe(min);
    expect(validate(body({ [field]: max }))[field as 'temperature']).toBe(max);
    expect(validate(body({ [field]: null }))[field as 'temperature']).toBeNull();
    expectRejected(body({ [field]: max + 0.0001 }), field, new RegExp(`'${field}' must be between ${min} and ${max}`));
    expectRejected(body({ [field]: min - 0.0001 }), field, new RegExp(`'${field}' must be between ${min} and ${max}`));
    expectRejected(body({ [field]: '1' }), field, /must be a number/);
  });

  it('logit_bias: token-id keys, values -100..100', () => {
    expect(validate(body({ logit_bias: { '0': -100, '1234': 100, '200018': 0.5 } })).logit_bias).toBeTruthy();
    expectRejected(body({ logit_bias: { '12': 100.5 } }), 'logit_bias.12', /between -100 and 100/);
    expectRejected(body({ logit_bias: { '12': -101 } }), 'logit_bias.12', /between -100 and 100/);
    expectRejected(body({ logit_bias: { hello: 1 } }), 'logit_bias', /keys must be token ids/);
    expectRejected(body({ logit_bias: { '-1': 1 } }), 'logit_bias', /keys must be token ids/);
    expectRejected(body({ logit_bias: { '200019': 1 } }), 'logit_bias', /keys must be token ids/);
    expectRejected(body({ logit_bias: [1] }), 'logit_bias', /must be an object/);
  });

  it('top_logprobs: 0..20 and only with logprobs true (rule 2)', () => {
    expect(validate(body({ logprobs: true, top_logprobs: 20 })).top_logprobs).toBe(20);
    expect(validate(body({ logprobs: true, top_logprobs: 0 })).top_logprobs).toBe(0);
    expectRejected(body({ logprobs: true, top_logprobs: 21 }), 'top_logprobs', /between 0 and 20/);
    expectRejected(body({ logprobs: true, top_logprobs: -1 }), 'top_logprobs', /between 0 and 20/);
    expectRejected(body({ logprobs: true, top_logprobs: 2.5 }), 'top_logprobs', /must be an integer/);
    expectRejected(body({ top_logprobs: 3 }), 'top_logprobs', /only be used when 'logprobs' is true/);
    expectRejected(body({ logprobs: false, top_logprobs: 3 }), 'top_logprobs', /only be used when 'logprobs' is true/);
    expectRejected(body({ logprobs: 'yes' }), 'logprobs', /must be a boolean/);
  });

  it('stop: a string or up to 4 strings', () => {
    expect(validate(body({ stop: 'END' })).stop).toBe('END');
    expect(validate(body({ stop: ['a', 'b', 'c', 'd'] })).stop).toHaveLength(4);
    expectRejected(body({ stop: ['a', 'b', 'c', 'd', 'e'] }), 'stop', /up to 4 sequences, got 5/);
    expectRejected(body({ stop: ['a', 3] }), 'stop[1]', /must be a string/);
    expectRejected(body({ stop: '' }), 'stop', /must not be an empty string/);
    expectRejected(body({ stop: 5 }), 'stop', /string or an array of strings/);
  });

  it('prompt_cache_key: at most 1024 characters', () => {
    expect(validate(body({ prompt_cache_key: 'k'.repeat(1024) })).prompt_cache_key).toHaveLength(1024);
    expectRejected(
      body({ prompt_cache_key: 'k'.repeat(1025) }),
      'prompt_cache_key',
      /at most 1024 characters, got 1025/,
    );
    expectRejected(body({ prompt_cache_key: 12 }), 'prompt_cache_key', /must be a string/);
  });

  it("max_completion_tokens: a positive integer up to the model's limit; max_tokens is its alias", () => {
    expect(validate(body({ max_completion_tokens: 1 })).max_completion_tokens).toBe(1);
    expect(validate(body({ max_completion_tokens: 4096 })).max_completion_tokens).toBe(4096);
    expectRejected(body({ max_completion_tokens: 4097 }), 'max_completion_tokens', /between 1 and 4096, got 4097/);
    expectRejected(body({ max_completion_tokens: 0 }), 'max_completion_tokens', /between 1 and 4096/);
    expectRejected(body({ max_completion_tokens: 10.5 }), 'max_completion_tokens', /must be an integer/);
    const aliased = validate(body({ max_tokens: 77 }));
    expect(aliased.max_completion_tokens).toBe(77);
    expect('max_tokens' in aliased).toBe(false);
    expectRejected(body({ max_tokens: 4097 }), 'max_tokens', /between 1 and 4096/);
    expectRejected(body({ max_tokens: 10, max_completion_tokens: 20 }), 'max_tokens', /send only one/);
  });

  it('seed: an integer', () => {
    expect(validate(body({ seed: -5 })).seed).toBe(-5);
    expect(validate(body({ seed: 2 ** 40 })).seed).toBe(2 ** 40);
    expectRejected(body({ seed: 1.5 }), 'seed', /must be an integer/);
    expectRejected(body({ seed: '42' }), 'seed', /must be an integer/);
  });

  it('service_tier: the enum, and priority only on dedicated endpoints', () => {
    for (const tier of ['default', 'auto', 'flex'])
      expect(validate(body({ service_tier: tier })).service_tier).toBe(tier);
    expectRejected(body({ service_tier: 'priority' }), 'service_tier', /only available on dedicated endpoints/);
    expect(validate(body({ service_tier: 'priority' }), { dedicatedEndpoint: true }).service_tier).toBe('priority');
    expectRejected(
      body({ service_tier: 'gold' }),
      'service_tier',
      /must be one of 'priority', 'default', 'auto', 'flex'/,
    );
  });

  it('prediction: type content with a string or text parts, on a model that supports it', () => {
    const options = { model: predictingModel };
    expect(validate(body({ prediction: { type: 'content', content: 'draft' } }), options).prediction?.type).toBe(
      'content',
    );
    validate(body({ prediction: { type: 'content', content: [{ type: 'text', text: 'draft' }] } }), options);
    validate(body({ prediction: null }), options);
    expectRejected(
      body({ prediction: { type: 'other', content: 'x' } }),
      'prediction.type',
      /must be 'content'/,
      options,
    );
    expectRejected(
      body({ prediction: { type: 'content' } }),
      'prediction.content',
      /string or an array of text parts/,
      options,
    );
    expectRejected(
      body({ prediction: { type: 'content', content: [{ type: 'image_url' }] } }),
      'prediction.content[0].type',
      /must be 'text'/,
      options,
    );
  });

  it('prediction is refused by a model whose supported_parameters leave it out, string or parts alike', () => {
    expect(textModel.supportedParameters).not.toContain('prediction');
    for (const content of ['draft', [{ type: 'text', text: 'draft' }]]) {
      expectRejected(
        body({ prediction: { type: 'content', content } }),
        'prediction',
        /'prediction' is not supported by model 'test-text'/,
      );
    }
    // Absent or null is no prediction: nothing to refuse.
    validate(body({ prediction: null }));
  });

  it('stream, parallel_tool_calls and user have their types', () => {
    expectRejected(body({ stream: 'true' }), 'stream', /must be a boolean/);
    expectRejected(body({ parallel_tool_calls: 1 }), 'parallel_tool_calls', /must be a boolean/);
    expectRejected(body({ user: 5 }), 'user', /must be a string/);
    expect(validate(body({ user: 'u-1', stream: false, parallel_tool_calls: false })).user).toBe('u-1');
  });

  it('does not modify the body it was given', () => {
    const original = body({ max_tokens: 12 });
    validate(original);
    expect(original['max_tokens']).toBe(12);
    expect('max_completion_tokens' in original).toBe(false);
  });
});
