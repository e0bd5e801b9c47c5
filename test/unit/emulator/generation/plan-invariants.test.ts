import { describe, expect, it } from 'vitest';
import { createRng } from '../../../../src/util/rng.js';
import { countTokens } from '../../../../src/util/tokenizer.js';
import { reasoningModel, textModel } from './model-fixtures.js';
import { plan } from './plan-helpers.js';

const STOPS = [',', '.', ' the', 'er', 'ing ', 'a', '"', '":', 'zz'];
const FORMATS = [
  undefined,
  { type: 'json_object' },
  {
    type: 'json_schema',
    json_schema: {
      name: 's',
      schema: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'number' } } },
        required: ['a', 'b'],
      },
    },
  },
];

describe('planCompletion: invariants over random combinations', () => {
  it('tokens, text and counts agree; caps and stops hold', () => {
    const rng = createRng(2024);
    for (let i = 0; i < 300; i++) {
      const model = rng.next() < 0.4 ? reasoningModel : textModel;
      const request: Record<string, unknown> = {
        seed: rng.int(0, 1e6),
        messages: [{ role: 'user', content: 'Answer in JSON or prose.' }],
      };
      if (rng.next() < 0.5) request['max_completion_tokens'] = rng.int(1, 300);
      if (rng.next() < 0.5)
        request['stop'] = [STOPS[rng.int(0, STOPS.length - 1)]!, STOPS[rng.int(0, STOPS.length - 1)]!];
      const format = FORMATS[rng.int(0, FORMATS.length - 1)];
      if (format) request['response_format'] = format;
      if (model === reasoningModel) request['reasoning_format'] = ['parsed', 'raw', 'hidden'][rng.int(0, 2)];
      if (rng.next() < 0.3) {
        request['logprobs'] = true;
        request['top_logprobs'] = rng.int(0, 5);
      }
      const result = plan(request, model);
      const context = JSON.stringify(request);
      const cap = request['max_completion_tokens'] as number | undefined;
      if (cap !== undefined) expect(result.tokens.length, context).toBeLessThanOrEqual(cap);
      expect(countTokens(result.content ?? ''), context).toBe(result.tokens.filter((t) => t.kind === 'content').length);
      const stops = (request['stop'] as string[] | undefined) ?? [];
      const content = result.content ?? '';
      // Stops apply to the answer, not to the reasoning inside raw <think> tags.
      const close = content.indexOf('</think>');
      const answer =
        request['reasoning_format'] !== 'raw' || model !== reasoningModel
          ? content
          : close < 0
            ? ''
            : content.slice(close + '</think>'.length);
      for (const stop of stops) expect(answer.includes(stop), `${context} -> ${answer}`).toBe(false);
      if (result.finishReason === 'length' && cap !== undefined) expect(result.tokens.length, context).toBe(cap);
      if (request['logprobs'])
        expect(
          result.tokens.every((t) => t.top.length === request['top_logprobs']),
          context,
        ).toBe(true);
    }
  });
});
