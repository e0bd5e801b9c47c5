/**
 * The purpose-built completions server (test/helpers/completions-server.ts) speaks what the official
 * `openai` SDK (a client nobody here wrote) parses: a stream of `text_completion` chunks with usage and
 * `[DONE]`, a whole body, and errors the SDK raises as APIError. Its timing and counts are what the
 * inferbench tests then hold the client to.
 */
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { o200kTokenizer } from '../../../src/util/tokenizer.js';
import {
  type CompletionsServer,
  ERROR_MIDSTREAM_MODEL,
  MODEL,
  startCompletionsServer,
} from '../../helpers/completions-server.js';

let server: CompletionsServer;
let client: OpenAI;
const PROMPT = 'The quick brown fox jumps over the lazy dog';

beforeAll(async () => {
  server = await startCompletionsServer({ firstTextMs: 30, tokenMs: 5, tokens: 6 });
  client = new OpenAI({ apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 10_000 });
});
afterAll(() => server.close());

describe('openai SDK against the completions server', () => {
  it('streams text chunks, finish_reason and usage through client.completions.create({ stream: true })', async () => {
    const stream = await client.completions.create({
      model: MODEL,
      prompt: PROMPT,
      max_tokens: 6,
      stream: true,
      stream_options: { include_usage: true },
    });
    const texts: string[] = [];
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('text_completion');
      for (const choice of chunk.choices) {
        texts.push(choice.text);
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    // The empty first event, six tokens, the empty last event with finish_reason.
    expect(texts).toEqual(['', ' tok', ' tok', ' tok', ' tok', ' tok', ' tok', '']);
    expect(finishes).toEqual(['length']);
    expect(usage).toEqual({
      prompt_tokens: o200kTokenizer().count(PROMPT),
      completion_tokens: 6,
      total_tokens: o200kTokenizer().count(PROMPT) + 6,
    });
    expect(o200kTokenizer().count(texts.join(''))).toBe(6);
  });

  it('answers a whole body without stream', async () => {
    const completion = await client.completions.create({ model: MODEL, prompt: PROMPT, max_tokens: 6 });
    expect(completion.choices[0]?.text).toBe(' tok'.repeat(6));
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(6);
  });

  it('raises a 404 for an unknown model and the mid-stream error event as errors', async () => {
    await expect(client.completions.create({ model: 'nope', prompt: PROMPT })).rejects.toSatisfy(
      (error) => error instanceof APIError && error.status === 404,
    );
    const stream = await client.completions.create({ model: ERROR_MIDSTREAM_MODEL, prompt: PROMPT, stream: true });
    const texts: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) texts.push(...chunk.choices.map((c) => c.text));
      })(),
    ).rejects.toThrow(/engine failed mid-stream/);
    expect(texts).toEqual(['', ' tok', ' tok']);
  });
});
