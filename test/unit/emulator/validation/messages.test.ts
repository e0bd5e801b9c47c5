import { describe, expect, it } from 'vitest';
import { textModel, visionModel } from '../generation/model-fixtures.js';
import { body, expectRejected, validate } from './expect-bad-request.js';

const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const imageMessage = (url: string) => ({
  role: 'user',
  content: [
    { type: 'text', text: 'What is in this picture?' },
    { type: 'image_url', image_url: { url } },
  ],
});

describe('validateChatRequest: messages', () => {
  it('accepts every role with its fields', () => {
    const request = validate(
      body({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
          { role: 'user', content: 'Weather in Paris?', name: 'ann' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: '{"t": 20}' },
          { role: 'assistant', content: 'It is 20 C.', refusal: null, reasoning: 'echoed back by clients' },
          { role: 'user', content: 'Thanks' },
        ],
      }),
    );
    expect(request.messages).toHaveLength(7);
  });

  it('rejects a bad role and non-object messages', () => {
    expectRejected(
      body({ messages: [{ role: 'bot', content: 'x' }] }),
      'messages[0].role',
      /must be one of 'system', 'developer', 'user', 'assistant', 'tool'/,
    );
    expectRejected(body({ messages: ['hello'] }), 'messages[0]', /must be an object/);
  });

  it('checks content per role', () => {
    expectRejected(
      body({ messages: [{ role: 'user' }] }),
      'messages[0].content',
      /string or an array of content parts/,
    );
    expectRejected(
      body({ messages: [{ role: 'user', content: [] }] }),
      'messages[0].content',
      /must not be an empty array/,
    );
    expectRejected(
      body({ messages: [{ role: 'user', content: [{ type: 'text' }] }] }),
      'messages[0].content[0].text',
      /must be a string/,
    );
    expectRejected(
      body({ messages: [{ role: 'user', content: [{ type: 'audio' }] }] }),
      'messages[0].content[0].type',
      /'text' or 'image_url'/,
    );
    expectRejected(
      body({ messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: PNG } }] }] }),
      'messages[0].content[0].type',
      /must be 'text', got "image_url"/,
      { model: visionModel },
    );
    expectRejected(
      body({ messages: [{ role: 'assistant' }] }),
      'messages[0].content',
      /without 'content' or 'tool_calls'/,
    );
    expectRejected(
      body({ messages: [{ role: 'user', content: 'x', name: 3 }] }),
      'messages[0].name',
      /must be a string/,
    );
  });

  it('tool messages need tool_call_id', () => {
    expectRejected(
      body({
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', content: 'result' },
        ],
      }),
      'messages[1].tool_call_id',
      /tool message without 'tool_call_id'/,
    );
  });

  it('assistant tool_calls have id, type function, name and string arguments', () => {
    const call = (fn: unknown, extra: Record<string, unknown> = {}) =>
      body({
        messages: [
          { role: 'assistant', tool_calls: [{ id: 'a', type: 'function', function: fn, ...extra }] },
          { role: 'tool', tool_call_id: 'a', content: 'r' },
        ],
      });
    expectRejected(
      call({ name: 'f', arguments: { x: 1 } }),
      'messages[0].tool_calls[0].function.arguments',
      /must be a string/,
    );
    expectRejected(call({ arguments: '{}' }), 'messages[0].tool_calls[0].function.name', /must be a string/);
    expectRejected(
      call({ name: 'f', arguments: '{}' }, { type: 'code' }),
      'messages[0].tool_calls[0].type',
      /must be 'function'/,
    );
    expectRejected(
      call({ name: 'f', arguments: '{}' }, { id: '' }),
      'messages[0].tool_calls[0].id',
      /must not be empty/,
    );
  });

  it('image parts work on a vision model and are refused on a text model', () => {
    expect(validate(body({ messages: [imageMessage(PNG)] }), { model: visionModel }).messages).toHaveLength(1);
    expectRejected(body({ messages: [imageMessage(PNG)] }), 'messages[0].content[1]', /does not accept images/, {
      model: textModel,
    });
  });

  it('image URLs must be base64 data URLs', () => {
    for (const url of [
      'https://example.com/cat.png',
      'data:image/png,rawbytes',
      'data:text/plain;base64,aGVsbG8=',
      'data:image/png;base64,not base64!',
      // The alphabet and padding rules, checked by a loop rather than a regex (validate-messages.ts).
      'data:image/png;base64,',
      'data:image/png;base64,==',
      'data:image/png;base64,QUJD===',
      'data:image/png;base64,QU=JD',
      'data:image/png;base64,QUJD\n',
      'data:image/png;base64,QUJDé',
      'data:image/png;base64,QUJD\u0100',
    ]) {
      expectRejected(
        body({ messages: [imageMessage(url)] }),
        'messages[0].content[1].image_url.url',
        /base64 data URL/,
        { model: visionModel },
      );
    }
    expectRejected(
      body({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: 'x' }] }] }),
      'messages[0].content[0].image_url',
      /must be an object/,
      { model: visionModel },
    );
  });
});
