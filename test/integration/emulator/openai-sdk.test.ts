/**
 * Interoperability: the official `openai` npm package (a client nobody here wrote) drives the emulator
 * for chat, streams, tools (streamed and not), json_schema and errors.
 */
import OpenAI, { APIError } from 'openai';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import { KEY } from './support.js';

let emulator: Emulator;
let client: OpenAI;

beforeAll(async () => {
  emulator = await createEmulator({ apiKeys: [KEY] });
  client = new OpenAI({ apiKey: KEY, baseURL: `${emulator.url}/v1`, maxRetries: 0, timeout: 30_000 });
});
afterAll(() => emulator.close());

const messages = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city', 'unit'],
      additionalProperties: false,
    },
  },
};

describe('openai SDK against the emulator', () => {
  it('lists models and retrieves one', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toContain('small-fast-8b');
    const model = await client.models.retrieve('large-70b');
    expect(model.id).toBe('large-70b');
  });

  it('chat completion with usage', async () => {
    const completion = await client.chat.completions.create({
      model: 'small-fast-8b',
      messages,
      max_completion_tokens: 16,
      seed: 1,
    });
    expect(completion.object).toBe('chat.completion');
    const content = completion.choices[0]!.message.content!;
    expect(content.length).toBeGreaterThan(0);
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
  });

  it('stream: the SDK reassembles the same text as the non-streaming answer', async () => {
    const stream = await client.chat.completions.create({
      model: 'small-fast-8b',
      messages,
      max_completion_tokens: 24,
      seed: 2,
      stream: true,
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    const whole = await client.chat.completions.create({
      model: 'small-fast-8b',
      messages,
      max_completion_tokens: 24,
      seed: 2,
    });
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(usage!.completion_tokens).toBe(whole.usage!.completion_tokens);
    expect(finish).toBe(whole.choices[0]!.finish_reason);
  });

  it('tools: a forced call comes back as tool_calls with JSON arguments', async () => {
    const completion = await client.chat.completions.create({
      model: 'large-70b',
      messages,
      tools: [weatherTool],
      tool_choice: 'required',
      seed: 3,
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call.type).toBe('function');
    if (call.type !== 'function') throw new Error('not a function call');
    expect(call.function.name).toBe('get_weather');
    const args = JSON.parse(call.function.arguments);
    expect(typeof args.city).toBe('string');
    expect(['c', 'f']).toContain(args.unit);
  });

  it('tools streamed: the SDK stream helper assembles the same call', async () => {
    const runner = client.chat.completions.stream({
      model: 'large-70b',
      messages,
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      seed: 4,
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    if (call.type !== 'function') throw new Error('not a function call');
    expect(call.function.name).toBe('get_weather');
    expect(call.id.length).toBeGreaterThan(0);
    expect(JSON.parse(call.function.arguments)).toMatchObject({ city: expect.any(String) });
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('json_schema (strict): the content is valid against the schema', async () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'integer', minimum: 0 },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['name', 'age', 'tags'],
      additionalProperties: false,
    };
    const completion = await client.chat.completions.create({
      model: 'large-70b',
      messages: [{ role: 'user', content: 'Describe a person as JSON.' }],
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema, strict: true } },
      seed: 5,
    });
    const value = JSON.parse(completion.choices[0]!.message.content!);
    const validate = new Ajv().compile(schema);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
  });

  it('a reasoning model returns message.reasoning and reasoning_tokens', async () => {
    const completion = await client.chat.completions.create({
      model: 'reasoner-120b',
      messages,
      reasoning_effort: 'low',
      max_completion_tokens: 400,
      seed: 6,
    });
    const message = completion.choices[0]!.message as { reasoning?: string };
    expect(typeof message.reasoning).toBe('string');
    expect(completion.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
  });

  it('errors surface as APIError subclasses with their status', async () => {
    const notFound = await client.chat.completions
      .create({ model: 'no-such-model', messages })
      .catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(APIError);
    expect((notFound as APIError).status).toBe(404);
    // The body is flat ({message,type,param,code}, as DESIGN.md and the real service have it), not OpenAI's
    // {error:{...}}: the SDK reads only `.error`, so it sees the status and class, not the code.
    expect(notFound).toBeInstanceOf(OpenAI.NotFoundError);
    const badKey = new OpenAI({ apiKey: 'wrong', baseURL: `${emulator.url}/v1`, maxRetries: 0 });
    const unauthorized = await badKey.chat.completions
      .create({ model: 'small-fast-8b', messages })
      .catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((unauthorized as APIError).status).toBe(401);
    const invalid = await client.chat.completions
      .create({ model: 'small-fast-8b', messages, temperature: 3 })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(OpenAI.BadRequestError);
    expect((invalid as APIError).status).toBe(400);
  });
});
