/**
 * The stream chunk parser must give exactly what JSON.parse gives, for every payload of a stream, whether it
 * reused its template or not: checked against JSON.parse on streams of vLLM-, OpenAI- and emulator-shaped
 * chunks, with escapes, reasoning, tool calls, usage, nonces and lookalike keys.
 */
import { describe, expect, it } from 'vitest';
import { API_READERS } from '../../../src/client/apis/api-readers.js';
import { StreamChunkParser } from '../../../src/client/chunk-template.js';

/** Parses every payload with one parser and compares each result with JSON.parse, at the time it is returned. */
function expectAgrees(payloads: readonly string[]): void {
  const parser = new StreamChunkParser();
  for (const data of payloads) expect(parser.parse(data)).toEqual(JSON.parse(data));
}

const vllm = (delta: string, finish: string | null = null): string =>
  `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? 'null' : `"${finish}"`}}]}`;

describe('StreamChunkParser', () => {
  it('reuses the template for plain content and agrees with JSON.parse on every chunk', () => {
    const parser = new StreamChunkParser();
    const first = parser.parse(vllm('{"content":"Hello"}'));
    const second = parser.parse(vllm('{"content":" world"}'));
    // The same object, rewritten: proof the fast path was taken.
    expect(second).toBe(first);
    expect(second).toEqual(JSON.parse(vllm('{"content":" world"}')));
  });

  it('falls back to JSON.parse for escapes, other fields and a changed shape', () => {
    expectAgrees([
      vllm('{"role":"assistant","content":""}'),
      vllm('{"content":"a"}'),
      vllm('{"content":"b"}'),
      vllm('{"content":"say \\"hi\\""}'),
      vllm('{"content":"line\\nbreak"}'),
      vllm('{"content":"c"}'),
      vllm('{"content":"é中😀"}'),
      vllm('{"reasoning_content":"think"}'),
      vllm('{"reasoning_content":"more"}'),
      vllm('{"content":"x"}'),
      vllm('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"a\\":1}"}}]}'),
      vllm('{"content":"y"}', 'stop'),
      vllm('{"content":""}', 'stop'),
      `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}`,
    ]);
  });

  it('agrees when the content field is a lookalike or duplicated key', () => {
    expectAgrees([
      '{"choices":[{"delta":{"content":"a"},"x":{"content":"a"}}]}',
      '{"choices":[{"delta":{"content":"b"},"x":{"content":"a"}}]}',
      '{"choices":[{"delta":{"content":"a","content":"z"}}]}',
      '{"choices":[{"delta":{"content":"b","content":"z"}}]}',
      '{"choices":[{"delta":{"content":"b"}}],"note":"\\"content\\":\\"b\\""}',
      '{"choices":[{"delta":{"content":"c"}}],"note":"\\"content\\":\\"b\\""}',
    ]);
  });

  it('agrees on chunks with a per-chunk nonce (OpenAI obfuscation) and on errors', () => {
    const payloads: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      payloads.push(`{"id":"c","choices":[{"index":0,"delta":{"content":"t${i}"}}],"obfuscation":"${'n'.repeat(i)}"}`);
    }
    payloads.push('{"error":{"message":"overloaded","code":"overloaded"}}');
    expectAgrees(payloads);
    expect(() => new StreamChunkParser().parse('{"choices":')).toThrow(SyntaxError);
  });

  it('rejects a payload that matches the template around a quote', () => {
    const parser = new StreamChunkParser();
    parser.parse(vllm('{"content":"a"}'));
    expect(() => parser.parse(vllm('{"content":"a"b"}'))).toThrow(SyntaxError);
  });
});

/** A vLLM `text_completion` chunk: the token's text is the choice's `text`. */
const completion = (text: string, finish: string | null = null): string =>
  `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":${JSON.stringify(text)},"logprobs":null,"finish_reason":${finish === null ? 'null' : `"${finish}"`}}],"usage":null}`;

describe('StreamChunkParser with the completions text slot', () => {
  const slot = API_READERS.completions.textSlot;

  it('reuses the template for plain text and agrees with JSON.parse', () => {
    const parser = new StreamChunkParser(slot);
    const first = parser.parse(completion('Hello'));
    const second = parser.parse(completion(' world'));
    expect(second).toBe(first);
    expect(second).toEqual(JSON.parse(completion(' world')));
  });

  it('falls back to JSON.parse for escapes, empty text, finish_reason, usage and lookalikes', () => {
    const parser = new StreamChunkParser(slot);
    for (const data of [
      completion(''),
      completion('a'),
      completion('b'),
      completion('say "hi"'),
      completion('line\nbreak'),
      completion('c'),
      completion('', 'length'),
      '{"choices":[{"index":0,"text":"a"}],"x":{"text":"a"}}',
      '{"choices":[{"index":0,"text":"b"}],"x":{"text":"a"}}',
      '{"choices":[{"index":0,"text":"a","text":"z"}]}',
      '{"choices":[{"index":0,"text":"b","text":"z"}]}',
      '{"id":"cmpl-1","object":"text_completion","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}',
    ])
      expect(parser.parse(data)).toEqual(JSON.parse(data));
  });
});
