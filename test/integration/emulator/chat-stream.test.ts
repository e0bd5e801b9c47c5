/**
 * Chat completion responses over real sockets: the non-streaming body field by field, the stream's
 * framing parsed from raw bytes, usage agreeing with what was sent (real tokenizer), the done marker,
 * seeds, and a client disconnect cancelling the engine job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import type { Engine, EngineHandle } from '../../../src/emulator/engine.js';
import { FixedTimingEngine } from '../../../src/emulator/fixed-timing-engine.js';
import type { ChatCompletionChunk, TimeInfo } from '../../../src/protocol/chat.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import { asChunk, chat, completionBody, KEY, parseSse, USER } from './support.js';

let emulator: Emulator;
let withDone: Emulator;

beforeAll(async () => {
  emulator = await createEmulator({ apiKeys: [KEY] });
  withDone = await createEmulator({ apiKeys: [KEY], doneMarker: true });
});
afterAll(async () => {
  await emulator.close();
  await withDone.close();
});

const isNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

function expectTimeInfo(timeInfo: TimeInfo | null | undefined): void {
  if (!timeInfo) throw new Error(`expected time_info, got ${timeInfo}`);
  expect(Object.keys(timeInfo).sort()).toEqual([
    'completion_time',
    'created',
    'prompt_time',
    'queue_time',
    'total_time',
  ]);
  for (const key of ['queue_time', 'prompt_time', 'completion_time', 'total_time', 'created'] as const)
    expect(isNumber(timeInfo[key]), key).toBe(true);
  expect(timeInfo.total_time).toBeCloseTo(timeInfo.queue_time + timeInfo.prompt_time + timeInfo.completion_time, 3);
  expect(timeInfo.prompt_time).toBeGreaterThan(0);
  expect(Math.abs(timeInfo.created - Date.now() / 1000)).toBeLessThan(120);
}

describe('non-streaming', () => {
  it('has every field of the spec with its type, and usage matching the content', async () => {
    const res = await chat(emulator.url, {
      model: 'large-70b',
      messages: USER,
      max_completion_tokens: 12,
      seed: 3,
      service_tier: 'default',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = completionBody(res);
    expect(typeof body.id).toBe('string');
    expect(body.object).toBe('chat.completion');
    expect(Number.isInteger(body.created)).toBe(true);
    expect(body.model).toBe('large-70b');
    expect(typeof body.system_fingerprint).toBe('string');
    // service_tier_used only answers `auto`: a tier asked by name is not reported back.
    expect(body.service_tier_used).toBeUndefined();
    expect(body.choices).toHaveLength(1);
    const choice = body.choices[0]!;
    expect(choice.index).toBe(0);
    expect(['stop', 'length']).toContain(choice.finish_reason);
    expect(choice.message.role).toBe('assistant');
    expect(typeof choice.message.content).toBe('string');
    expect(choice.message.tool_calls).toBeNull();
    expect(choice.logprobs).toBeNull();
    const usage = body.usage;
    expect(usage.completion_tokens).toBe(countTokens(choice.message.content ?? ''));
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeLessThanOrEqual(12);
    expect(Number.isInteger(usage.prompt_tokens) && usage.prompt_tokens > 0).toBe(true);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(usage.completion_tokens_details?.reasoning_tokens).toBe(0);
    expect(usage.image_tokens).toBeUndefined();
    expectTimeInfo(body.time_info);
  });

  it('same seed, same output; another seed, another output', async () => {
    const ask = (seed: number) =>
      chat(emulator.url, { model: 'small-fast-8b', messages: USER, max_completion_tokens: 20, seed });
    const [a, b, c] = (await Promise.all([ask(11), ask(11), ask(12)])).map(
      (res) => completionBody(res).choices[0]!.message.content,
    );
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });
});

/** The first choice of a chunk (the emulator always sends exactly one). */
const choiceOf = (chunk: ChatCompletionChunk) => chunk.choices[0]!;

async function stream(
  target: Emulator,
  body: object,
): Promise<{ raw: string; events: unknown[]; contentType: string | null }> {
  const res = await chat(target.url, { model: 'small-fast-8b', messages: USER, stream: true, ...body });
  expect(res.status).toBe(200);
  return { raw: res.text, events: parseSse(res.text), contentType: res.headers.get('content-type') };
}

describe('streaming', () => {
  it('role first, one chunk per token, then a last chunk with finish_reason, usage and time_info; no [DONE]', async () => {
    const { events, contentType, raw } = await stream(emulator, {
      max_completion_tokens: 25,
      seed: 5,
      service_tier: 'flex',
    });
    expect(contentType).toBe('text/event-stream');
    expect(raw).not.toContain('[DONE]');
    const chunks = events.map(asChunk);
    const first = chunks[0]!;
    const last = chunks[chunks.length - 1]!;
    const middle = chunks.slice(1, -1);
    for (const chunk of chunks) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.id).toBe(first.id);
      expect(chunk.model).toBe('small-fast-8b');
      expect(chunk.service_tier_used).toBeUndefined();
      expect(Number.isInteger(chunk.created)).toBe(true);
      expect(typeof chunk.system_fingerprint).toBe('string');
    }
    expect(choiceOf(first).delta).toEqual({ role: 'assistant', content: '' });
    expect(choiceOf(first).finish_reason).toBeNull();
    for (const chunk of middle) {
      expect(choiceOf(chunk).finish_reason).toBeNull();
      expect(typeof choiceOf(chunk).delta.content).toBe('string');
      expect(choiceOf(chunk).delta.content?.length).toBeGreaterThan(0);
      expect(chunk.usage).toBeUndefined();
    }
    expect(['stop', 'length']).toContain(choiceOf(last).finish_reason);
    expect(choiceOf(last).delta).toEqual({});
    const usage = last.usage!;
    expect(usage.completion_tokens).toBe(middle.length);
    const text = middle.map((c) => choiceOf(c).delta.content).join('');
    expect(countTokens(text)).toBe(usage.completion_tokens);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expectTimeInfo(last.time_info);
  });

  it('a stream and a non-streaming answer with the same seed carry the same text', async () => {
    const { events } = await stream(emulator, { max_completion_tokens: 15, seed: 9 });
    const text = events
      .slice(1, -1)
      .map((event) => choiceOf(asChunk(event)).delta.content)
      .join('');
    const whole = await chat(emulator.url, {
      model: 'small-fast-8b',
      messages: USER,
      max_completion_tokens: 15,
      seed: 9,
    });
    expect(text).toBe(completionBody(whole).choices[0]!.message.content);
  });

  it('a reasoning model streams reasoning deltas first, then content; usage counts both', async () => {
    const { events } = await stream(emulator, {
      model: 'reasoner-120b',
      reasoning_effort: 'low',
      max_completion_tokens: 300,
      seed: 8,
    });
    const chunks = events.slice(1, -1).map(asChunk);
    const last = asChunk(events[events.length - 1]);
    const kinds = chunks.map((c) => ('reasoning' in choiceOf(c).delta ? 'reasoning' : 'content'));
    const reasoning = kinds.filter((k) => k === 'reasoning').length;
    expect(reasoning).toBeGreaterThan(0);
    expect(kinds.indexOf('content')).toBe(reasoning);
    expect(last.usage?.completion_tokens).toBe(chunks.length);
    expect(last.usage?.completion_tokens_details?.reasoning_tokens).toBe(reasoning);
  });

  it('a tool call streams a first fragment with id, type, name and empty arguments, then argument pieces', async () => {
    const tool = {
      type: 'function',
      function: {
        name: 'lookup',
        parameters: {
          type: 'object',
          properties: { q: { type: 'string' } },
          required: ['q'],
          additionalProperties: false,
        },
      },
    };
    const { events } = await stream(emulator, { model: 'large-70b', tools: [tool], tool_choice: 'required', seed: 2 });
    const chunks = events.slice(1, -1).map(asChunk);
    const last = asChunk(events[events.length - 1]);
    const first = choiceOf(chunks[0]!).delta.tool_calls![0];
    expect(first).toEqual({
      index: 0,
      id: expect.any(String),
      type: 'function',
      function: { name: 'lookup', arguments: '' },
    });
    const pieces = chunks.slice(1).map((c) => choiceOf(c).delta.tool_calls![0]!);
    for (const piece of pieces) expect(piece.index).toBe(0);
    expect(JSON.parse(pieces.map((p) => p.function!.arguments).join(''))).toMatchObject({ q: expect.any(String) });
    expect(choiceOf(last).finish_reason).toBe('tool_calls');
    expect(last.usage?.completion_tokens).toBe(pieces.length);
  });

  it('with --done-marker the stream ends with data: [DONE] after the usage chunk', async () => {
    const { events, raw } = await stream(withDone, { max_completion_tokens: 5 });
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(events[events.length - 1]).toBe('[DONE]');
    expect(asChunk(events[events.length - 2]).usage?.completion_tokens).toBe(events.length - 3);
  });

  it('a client that goes away cancels the engine job', async () => {
    const cancelled: string[] = [];
    const inner = new FixedTimingEngine({ ttftMs: 1, interTokenMs: 20 });
    const engine: Engine = {
      nowMs: () => inner.nowMs(),
      submit: (job, callbacks): EngineHandle => {
        const handle = inner.submit(job, callbacks);
        return {
          cancel: () => {
            cancelled.push(job.modelId);
            handle.cancel();
          },
        };
      },
      averageQueueMs: () => inner.averageQueueMs(),
      close: () => inner.close(),
    };
    const slow = await createEmulator({ apiKeys: [KEY], engine });
    try {
      const abort = new AbortController();
      const res = await fetch(`${slow.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'small-fast-8b', messages: USER, stream: true, max_completion_tokens: 100 }),
        signal: abort.signal,
      });
      const reader = res.body!.getReader();
      await reader.read();
      abort.abort();
      const deadline = Date.now() + 10_000;
      while (cancelled.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(cancelled).toEqual(['small-fast-8b']);
    } finally {
      await slow.close();
    }
  });

  it('tokens released in one engine callback arrive, in order, as chunks of one response', async () => {
    // An engine that releases the whole answer in a single callback: the writer must emit every chunk.
    const engine: Engine = {
      nowMs: () => performance.now(),
      submit: (job, callbacks) => {
        setTimeout(() => {
          const nowMs = performance.now();
          callbacks.onTokens(job.outputTokens);
          callbacks.onFinish({
            receivedMs: job.receivedMs ?? nowMs,
            slotMs: nowMs,
            firstTokenMs: nowMs,
            doneMs: nowMs,
            receivedWallMs: Date.now(),
          });
        }, 1);
        return { cancel: () => {} };
      },
      averageQueueMs: () => 0,
      close: () => {},
    };
    const batch = await createEmulator({ apiKeys: [KEY], engine });
    try {
      const { events } = await stream(batch, { max_completion_tokens: 30, seed: 1 });
      const last = asChunk(events[events.length - 1]);
      expect(events.length - 2).toBe(last.usage?.completion_tokens);
    } finally {
      await batch.close();
    }
  });
});
