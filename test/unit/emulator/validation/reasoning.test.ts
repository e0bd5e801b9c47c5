import { describe, expect, it } from 'vitest';
import { effortNoneModel, reasoningModel, textModel } from '../generation/model-fixtures.js';
import { body, expectRejected, validate } from './expect-bad-request.js';

describe('validateChatRequest: reasoning_effort and reasoning_format per model', () => {
  it('the first reasoning model accepts low, medium, high and refuses none', () => {
    for (const effort of ['low', 'medium', 'high']) {
      expect(validate(body({ reasoning_effort: effort }), { model: reasoningModel }).reasoning_effort).toBe(effort);
    }
    expectRejected(
      body({ reasoning_effort: 'none' }),
      'reasoning_effort',
      /'none' is not supported by model 'test-reasoner'; it accepts 'low', 'medium', 'high'/,
      {
        model: reasoningModel,
      },
    );
  });

  it('the second reasoning model accepts none, low, medium, high', () => {
    for (const effort of ['none', 'low', 'medium', 'high']) {
      expect(validate(body({ reasoning_effort: effort }), { model: effortNoneModel }).reasoning_effort).toBe(effort);
    }
  });

  it('rejects values outside the enum and any effort on a non-reasoning model', () => {
    expectRejected(
      body({ reasoning_effort: 'max' }),
      'reasoning_effort',
      /must be one of 'low', 'medium', 'high', 'none'/,
      { model: reasoningModel },
    );
    expectRejected(body({ reasoning_effort: 'low' }), 'reasoning_effort', /does not reason/, { model: textModel });
    expect(validate(body({ reasoning_effort: null }), { model: textModel }).reasoning_effort).toBeNull();
  });

  it('reasoning_format: all three on the first model, raw and hidden refused by the second', () => {
    for (const format of ['parsed', 'raw', 'hidden']) {
      expect(validate(body({ reasoning_format: format }), { model: reasoningModel }).reasoning_format).toBe(format);
    }
    expect(validate(body({ reasoning_format: 'parsed' }), { model: effortNoneModel }).reasoning_format).toBe('parsed');
    for (const format of ['raw', 'hidden']) {
      expectRejected(
        body({ reasoning_format: format }),
        'reasoning_format',
        new RegExp(`'${format}' is not supported by model 'test-reasoner-none'`),
        {
          model: effortNoneModel,
        },
      );
    }
    expectRejected(body({ reasoning_format: 'xml' }), 'reasoning_format', /must be one of 'parsed', 'raw', 'hidden'/, {
      model: reasoningModel,
    });
    expectRejected(body({ reasoning_format: 'parsed' }), 'reasoning_format', /does not reason/, { model: textModel });
  });
});
