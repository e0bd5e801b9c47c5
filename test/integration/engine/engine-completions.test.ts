// @module-tag slow
/**
 * POST /v1/completions on the engine server (test/helpers/engine/), driven by the official `openai` SDK (a
 * client nobody here wrote), so the format is what the SDK parses: `object: "text_completion"`, the text in
 * `choices[].text`, a stream ending in `data: [DONE]`, usage in a last chunk of no choices when
 * `stream_options.include_usage` asks for it. The prompt is the text as given, no chat template: usage's
 * prompt_tokens is exactly the engine's tokenization of it (the fixture's, id for id), completion_tokens
 * the tokens the engine generated. The route keeps the engine's stamp of each token under the request's
 * x-request-id, as the chat route does (what `npm run bench engine` reads).
 *
 * Slow: llama.cpp and the model load in 1-3 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { APIError } from 'openai';
import type { Completion } from 'openai/resources/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoadedTokenizer, loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { type EngineServer, startEngineServer } from '../../helpers/engine/engine-server.js';
import type { EngineRequestLog } from '../../helpers/engine/llama-engine.js';
import { TINY_BPE_TOKENIZER, wholeWordTokens, writeTinyLlama } from '../../helpers/engine/tiny-llama-gguf.js';

let modelDir: string;
let server: EngineServer;
let client: OpenAI;
let hf: LoadedTokenizer;
/** +100 on the whole-word tokens: the answer runs to max_tokens and retokenises into the tokens generated. */
let logit_bias: Record<string, number>;

const prompt = 'Tokens, streams; and models!  the quick brown fox 12345 café 🙂';

beforeAll(async () => {
  modelDir = mkdtempSync(join(tmpdir(), 'inferbench-gguf-cmpl-'));
  hf = await loadHfTokenizer(TINY_BPE_TOKENIZER);
  logit_bias = Object.fromEntries(wholeWordTokens(hf.encode).map((id) => [String(id), 100]));
  server = await startEngineServer({ modelPath: writeTinyLlama(modelDir).path, sequences: 2, contextSize: 1024 });
  client = new OpenAI({ apiKey: 'unused', baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 30_000 });
});

afterAll(async () => {
  await server?.close();
  rmSync(modelDir, { recursive: true, force: true });
});

function logOf(requestId: string): EngineRequestLog {
  const log = server.requests.find((r) => r.requestId === requestId);
  if (log === undefined) throw new Error(`the engine saw no request ${requestId}`);
  return log;
}

describe('/v1/completions on the engine, through the openai SDK', () => {
  it('one JSON answer: the text completion, usage exactly the engine tokenization of the prompt and of the answer', async () => {
    const answer = await client.completions.create(
      { model: server.modelId, prompt, max_tokens: 12, temperature: 0, logit_bias },
      { headers: { 'x-request-id': 'whole-1' } },
    );
    const log = logOf('whole-1');
    expect(answer).toMatchObject({ object: 'text_completion', model: server.modelId });
    expect(answer.id).toMatch(/^cmpl-/);
    expect(answer.choices).toHaveLength(1);
    const [choice] = answer.choices;
    expect(choice).toMatchObject({ index: 0, finish_reason: 'length', logprobs: null });
    // No chat template around the prompt: the engine's tokens of the text itself, the fixture's ids.
    const tokens = server.engine.tokenize(prompt);
    expect(tokens).toEqual(hf.encode(prompt));
    expect(answer.usage).toEqual({
      prompt_tokens: tokens.length,
      completion_tokens: 12,
      total_tokens: tokens.length + 12,
    });
    expect(log).toMatchObject({ prompt, messages: [], promptTokens: tokens.length, completionTokens: 12 });
    expect(log.text).toBe(choice?.text);
    expect(hf.count(choice?.text ?? '')).toBe(12);
    // The engine stamped each of the 12 tokens (a length finish: no end-of-generation token after them).
    expect(log.tokenTimesMs).toHaveLength(12);
  });

  it('a stream: text chunks then the finish, usage in a last chunk of no choices; the same greedy text', async () => {
    const whole = await client.completions.create({
      model: server.modelId,
      prompt,
      max_tokens: 10,
      temperature: 0,
      logit_bias,
    });
    const { data: stream, response } = await client.completions
      .create(
        {
          model: server.modelId,
          prompt,
          max_tokens: 10,
          temperature: 0,
          logit_bias,
          stream: true,
          stream_options: { include_usage: true },
        },
        { headers: { 'x-request-id': 'stream-1' } },
      )
      .withResponse();
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const chunks: Completion[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.object === 'text_completion' && c.id === chunks[0]?.id)).toBe(true);
    const usageChunk = chunks.at(-1);
    expect(usageChunk?.choices).toEqual([]);
    expect(usageChunk?.usage).toEqual(whole.usage);
    const choices = chunks.slice(0, -1).map((c) => {
      expect(c.usage).toBeUndefined();
      expect(c.choices).toHaveLength(1);
      return c.choices[0] as Completion['choices'][number];
    });
    // One chunk a whole-word token as the engine made it, then the finish in a chunk of no text.
    expect(choices.map((c) => c.finish_reason)).toEqual([...Array<null>(10).fill(null), 'length']);
    expect(choices.at(-1)?.text).toBe('');
    expect(choices.slice(0, -1).every((c) => hf.count(c.text) === 1)).toBe(true);
    expect(choices.map((c) => c.text).join('')).toBe(whole.choices[0]?.text);
    const log = logOf('stream-1');
    expect(log.tokenTimesMs).toHaveLength(10);
    expect(log.tokenTimesMs.every((t, i) => i === 0 || t >= (log.tokenTimesMs[i - 1] as number))).toBe(true);
    expect(log.tokenTimesMs[0]).toBeGreaterThanOrEqual(log.startedMs);

    // Without include_usage: no usage chunk, the stream ends with the finish.
    const plain: Completion[] = [];
    for await (const chunk of await client.completions.create({
      model: server.modelId,
      prompt,
      max_tokens: 3,
      temperature: 0,
      logit_bias,
      stream: true,
    }))
      plain.push(chunk);
    expect(plain.map((c) => c.choices[0]?.finish_reason)).toEqual([null, null, null, 'length']);
    expect(plain.every((c) => c.usage === undefined)).toBe(true);
  });

  it('max_tokens defaults to 16; a stop string ends the text before it with stop; a bad prompt or model is refused', async () => {
    const unbounded = await client.completions.create({ model: server.modelId, prompt, temperature: 0, logit_bias });
    expect(unbounded.usage?.completion_tokens).toBe(16);
    expect(unbounded.choices[0]?.finish_reason).toBe('length');
    const text = unbounded.choices[0]?.text ?? '';
    const words = text.split(' ');
    const stop = ` ${words[5]} ${words[6]}`;
    const stopped = await client.completions.create({
      model: server.modelId,
      prompt,
      temperature: 0,
      logit_bias,
      stop,
    });
    expect(stopped.choices[0]).toMatchObject({ text: text.slice(0, text.indexOf(stop)), finish_reason: 'stop' });
    expect(stopped.usage?.completion_tokens).toBeLessThan(16);
    const refusal = async (body: Parameters<typeof client.completions.create>[0]) => {
      try {
        await client.completions.create(body);
      } catch (error) {
        if (error instanceof APIError) return { status: error.status, param: error.param };
        throw error;
      }
      throw new Error('not refused');
    };
    expect(await refusal({ model: server.modelId, prompt: '' })).toEqual({ status: 400, param: 'prompt' });
    expect(await refusal({ model: server.modelId, prompt: ['one', 'two'] })).toEqual({ status: 400, param: 'prompt' });
    expect(await refusal({ model: server.modelId, prompt, max_tokens: 2000 })).toEqual({
      status: 400,
      param: 'max_tokens',
    });
    expect(await refusal({ model: 'nope', prompt })).toEqual({ status: 404, param: 'model' });
  });
});
