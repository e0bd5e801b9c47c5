/**
 * The wire shape of `logprobs` and `reasoning_logprobs` over real sockets, streamed and whole, on a plain
 * model and on both reasoning models (spec: Choice fields, Versioning 6c, Rules 2, Limits). A choice's
 * `logprobs` is null or `{content: [entry]}`, an entry `{token, logprob, bytes, top_logprobs}` with a
 * logprob <= 0 and exactly the asked number of alternatives (0 to 20), the chosen token first and the
 * others less likely, together no more likely than certain; one entry per generated token, the entries'
 * tokens spelling exactly the text they belong to. Reasoning models put the reasoning tokens' entries in
 * `reasoning_logprobs` and only there. Without `logprobs: true` nothing carries any; `top_logprobs`
 * without it is a 400 naming it. A token's logprob does not depend on how many alternatives were asked.
 * The subject is the wire shape, not its timing: the built-in models decode 50 times faster here
 * (fastBuiltinCatalog), so a 400-token answer takes ms, not seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import type {
  ChatCompletionChunk,
  ChatCompletionResponse,
  LogprobEntry,
  Logprobs,
} from '../../../src/protocol/chat.js';
import { fastBuiltinCatalog } from '../../helpers/in-process-emulator.js';
import { asChunk, chat, completionBody, errorBody, KEY, parseSse, USER } from './support.js';

const PLAIN = 'small-fast-8b';
const REASONERS = ['reasoner-120b', 'thinker-32b'];

let emulator: Emulator;

beforeAll(async () => {
  emulator = await createEmulator({ apiKeys: [KEY], catalog: fastBuiltinCatalog() });
});
afterAll(async () => {
  await emulator?.close();
});

async function whole(body: Record<string, unknown>): Promise<ChatCompletionResponse> {
  const res = await chat(emulator.url, { messages: USER, ...body });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return completionBody(res);
}

async function streamed(body: Record<string, unknown>): Promise<ChatCompletionChunk[]> {
  const res = await chat(emulator.url, { messages: USER, stream: true, ...body });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return parseSse(res.text).map(asChunk);
}

/** One entry: exactly these keys, a logprob <= 0, its UTF-8 bytes, `top` alternatives as the spec's Limits allow. */
function expectEntry(entry: LogprobEntry, top: number): void {
  expect(Object.keys(entry).sort()).toEqual(['bytes', 'logprob', 'token', 'top_logprobs']);
  expect(typeof entry.token).toBe('string');
  expect(entry.token.length).toBeGreaterThan(0);
  expect(Number.isFinite(entry.logprob)).toBe(true);
  expect(entry.logprob).toBeLessThanOrEqual(0);
  expect(entry.bytes).toEqual([...Buffer.from(entry.token, 'utf8')]);
  const alternatives = entry.top_logprobs ?? [];
  expect(alternatives).toHaveLength(top);
  if (top === 0) return;
  expect(alternatives[0]).toEqual({ token: entry.token, logprob: entry.logprob, bytes: entry.bytes });
  for (let i = 0; i < alternatives.length; i++) {
    const alternative = alternatives[i]!;
    expect(Object.keys(alternative).sort()).toEqual(['bytes', 'logprob', 'token']);
    expect(Number.isFinite(alternative.logprob)).toBe(true);
    expect(alternative.logprob).toBeLessThanOrEqual(0);
    expect(alternative.bytes).toEqual([...Buffer.from(alternative.token, 'utf8')]);
    if (i > 0) expect(alternative.logprob).toBeLessThan(alternatives[i - 1]!.logprob);
  }
  expect(new Set(alternatives.map((a) => a.token)).size).toBe(top);
  // Alternatives are distinct outcomes of one draw: their probabilities add up to at most 1 (5-decimal rounding aside).
  const mass = alternatives.reduce((sum, a) => sum + Math.exp(a.logprob), 0);
  expect(mass, JSON.stringify(alternatives.map((a) => a.logprob))).toBeLessThanOrEqual(1 + 1e-4);
}

/** A `{content: [...]}` object whose entries spell `text`, one per token, each with `top` alternatives. */
function expectLogprobs(logprobs: Logprobs | null | undefined, text: string, tokens: number, top: number): void {
  if (!logprobs) throw new Error(`expected a logprobs object, got ${JSON.stringify(logprobs)}`);
  expect(Object.keys(logprobs)).toEqual(['content']);
  const entries = logprobs.content ?? [];
  expect(entries).toHaveLength(tokens);
  expect(entries.map((e) => e.token).join('')).toBe(text);
  for (const entry of entries) expectEntry(entry, top);
}

describe('a whole (non-streamed) answer', () => {
  it('plain model: logprobs has one entry per completion token spelling the content; no reasoning_logprobs', async () => {
    for (const top of [0, 3, 20]) {
      const body = await whole({ model: PLAIN, max_completion_tokens: 24, seed: 7, logprobs: true, top_logprobs: top });
      const choice = body.choices[0]!;
      expect(Object.keys(choice).sort()).toEqual(['finish_reason', 'index', 'logprobs', 'message']);
      expectLogprobs(choice.logprobs, choice.message.content ?? '', body.usage.completion_tokens, top);
    }
    // logprobs alone: every entry still has its (empty) top_logprobs.
    const body = await whole({ model: PLAIN, max_completion_tokens: 24, seed: 7, logprobs: true });
    const choice = body.choices[0]!;
    expectLogprobs(choice.logprobs, choice.message.content ?? '', body.usage.completion_tokens, 0);
  });

  it.each(REASONERS)(
    '%s: reasoning tokens in reasoning_logprobs (spelling message.reasoning), answer tokens in logprobs',
    async (model) => {
      const body = await whole({ model, max_completion_tokens: 400, seed: 3, logprobs: true, top_logprobs: 2 });
      const choice = body.choices[0]!;
      const reasoningTokens = body.usage.completion_tokens_details?.reasoning_tokens ?? 0;
      expect(reasoningTokens).toBeGreaterThan(0);
      expect(choice.message.content?.length ?? 0).toBeGreaterThan(0);
      expect(Object.keys(choice).sort()).toEqual([
        'finish_reason',
        'index',
        'logprobs',
        'message',
        'reasoning_logprobs',
      ]);
      expectLogprobs(choice.reasoning_logprobs, choice.message.reasoning ?? '', reasoningTokens, 2);
      expectLogprobs(choice.logprobs, choice.message.content ?? '', body.usage.completion_tokens - reasoningTokens, 2);
    },
  );

  it('without logprobs: logprobs is null, and reasoning_logprobs too on a reasoning model', async () => {
    for (const logprobs of [undefined, false]) {
      const plain = await whole({ model: PLAIN, max_completion_tokens: 8, logprobs });
      expect(plain.choices[0]!.logprobs).toBeNull();
      expect('reasoning_logprobs' in plain.choices[0]!).toBe(false);
      const reasoner = await whole({ model: REASONERS[0], max_completion_tokens: 200, logprobs });
      expect(reasoner.choices[0]!.logprobs).toBeNull();
      expect(reasoner.choices[0]!.reasoning_logprobs).toBeNull();
    }
  });
});

describe('a stream', () => {
  it('plain model: each token chunk carries one entry for its delta; role and last chunks carry none', async () => {
    const chunks = await streamed({
      model: PLAIN,
      max_completion_tokens: 24,
      seed: 7,
      logprobs: true,
      top_logprobs: 4,
    });
    const first = chunks[0]!.choices[0]!;
    const last = chunks.at(-1)!;
    expect(Object.keys(first).sort()).toEqual(['delta', 'finish_reason', 'index']);
    expect(Object.keys(last.choices[0]!).sort()).toEqual(['delta', 'finish_reason', 'index']);
    const middle = chunks.slice(1, -1).map((c) => c.choices[0]!);
    expect(middle).toHaveLength(last.usage!.completion_tokens);
    for (const choice of middle) {
      expect(Object.keys(choice).sort()).toEqual(['delta', 'finish_reason', 'index', 'logprobs']);
      expectLogprobs(choice.logprobs, choice.delta.content ?? '', 1, 4);
    }
  });

  it.each(REASONERS)(
    '%s: reasoning chunks carry reasoning_logprobs only, answer chunks logprobs only, one entry each',
    async (model) => {
      const chunks = await streamed({ model, max_completion_tokens: 400, seed: 3, logprobs: true, top_logprobs: 1 });
      const usage = chunks.at(-1)!.usage!;
      const middle = chunks.slice(1, -1).map((c) => c.choices[0]!);
      const reasoning = middle.filter((c) => c.delta.reasoning !== undefined);
      const answer = middle.filter((c) => c.delta.content !== undefined);
      expect(reasoning).toHaveLength(usage.completion_tokens_details?.reasoning_tokens ?? -1);
      expect(answer.length).toBeGreaterThan(0);
      expect(reasoning.length + answer.length).toBe(usage.completion_tokens);
      for (const choice of reasoning) {
        expect(Object.keys(choice).sort()).toEqual(['delta', 'finish_reason', 'index', 'reasoning_logprobs']);
        expectLogprobs(choice.reasoning_logprobs, choice.delta.reasoning ?? '', 1, 1);
      }
      for (const choice of answer) {
        expect(Object.keys(choice).sort()).toEqual(['delta', 'finish_reason', 'index', 'logprobs']);
        expectLogprobs(choice.logprobs, choice.delta.content ?? '', 1, 1);
      }
    },
  );

  it('without logprobs no chunk carries logprobs or reasoning_logprobs', async () => {
    for (const model of [PLAIN, ...REASONERS]) {
      for (const logprobs of [undefined, false]) {
        const chunks = await streamed({ model, max_completion_tokens: 200, logprobs });
        for (const chunk of chunks) {
          expect(Object.keys(chunk.choices[0]!).sort(), model).toEqual(['delta', 'finish_reason', 'index']);
        }
      }
    }
  });

  it('the stream and the whole answer of one seed carry the same entries', async () => {
    const request = { model: REASONERS[0], max_completion_tokens: 300, seed: 5, logprobs: true, top_logprobs: 3 };
    const body = await whole(request);
    const chunks = await streamed(request);
    const middle = chunks.slice(1, -1).map((c) => c.choices[0]!);
    expect(middle.flatMap((c) => c.reasoning_logprobs?.content ?? [])).toEqual(
      body.choices[0]!.reasoning_logprobs?.content,
    );
    expect(middle.flatMap((c) => c.logprobs?.content ?? [])).toEqual(body.choices[0]!.logprobs?.content);
  });
});

describe('logprobs of one seed', () => {
  it("a token's logprob does not depend on how many alternatives were asked, and asking never changes the text", async () => {
    const ask = (extra: Record<string, unknown>) =>
      whole({ model: PLAIN, max_completion_tokens: 24, seed: 11, ...extra });
    const plain = await ask({});
    const answers = await Promise.all([0, 1, 5, 20].map((top) => ask({ logprobs: true, top_logprobs: top })));
    const logprobsOf = (body: ChatCompletionResponse) => body.choices[0]!.logprobs?.content?.map((e) => e.logprob);
    for (const answer of answers) {
      expect(answer.choices[0]!.message.content).toBe(plain.choices[0]!.message.content);
      expect(logprobsOf(answer)).toEqual(logprobsOf(answers[0]!));
    }
  });
});

describe('rule 2 and the limits', () => {
  it.each([
    [{ top_logprobs: 2 }, /'top_logprobs' can only be used when 'logprobs' is true/],
    [{ logprobs: false, top_logprobs: 2 }, /'top_logprobs' can only be used when 'logprobs' is true/],
    [{ logprobs: true, top_logprobs: 21 }, /'top_logprobs' must be/],
    [{ logprobs: true, top_logprobs: -1 }, /'top_logprobs' must be/],
    [{ logprobs: true, top_logprobs: 1.5 }, /'top_logprobs' must be/],
  ])('%j is a 400 naming top_logprobs, streamed or not', async (fields, message) => {
    for (const stream of [false, true]) {
      const res = await chat(emulator.url, { model: PLAIN, messages: USER, stream, ...fields });
      expect(res.status).toBe(400);
      const error = errorBody(res);
      expect(error.type).toBe('invalid_request_error');
      expect(error.param).toBe('top_logprobs');
      expect(error.message).toMatch(message);
    }
  });

  it('logprobs must be a boolean', async () => {
    const res = await chat(emulator.url, { model: PLAIN, messages: USER, logprobs: 'yes' });
    expect(res.status).toBe(400);
    expect(errorBody(res).param).toBe('logprobs');
  });
});
