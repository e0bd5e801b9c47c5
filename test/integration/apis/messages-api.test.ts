/**
 * `api: messages` against the purpose-built Anthropic server (test/helpers/messages-server.ts: the event
 * sequence of Anthropic's streaming docs), over real sockets: the body it sends (system at the top,
 * max_tokens, stop_sequences, tools as input_schema, no OpenAI-only field, which the server rejects as
 * Anthropic does), token counts exact from usage (cache reads in prompt_tokens) and from the client's
 * tokenizer, pings ignored, thinking and tool_use blocks, a non-streaming message, an `error` event and a
 * 529 classified with Anthropic's error type, the key sent as x-api-key (never as a bearer token, and in no
 * output file), and the embedded emulator refused. Timing (TTFT within a millisecond) is messages-run.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/client/request-record.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { o200kTokenizer } from '../../../src/util/tokenizer.js';
import { runCliInProcess } from '../../helpers/cli.js';
import {
  ERROR_EVENT_MODEL,
  MODEL,
  type MessagesServer,
  OVERLOADED_MODEL,
  startMessagesServer,
  THINKING_MODEL,
  TOOL_MODEL,
} from '../../helpers/messages-server.js';
import { runRecording, servedFor, type SeenRequest, sendOnce } from '../../helpers/recorded-run.js';

const FIRST_TEXT_MS = 20;
const TOKEN_MS = 2;
const TOKENS = 6;
const INPUT_TOKENS = 32;
const CACHED = 8;
const KEY = 'sk-ant-test-0123456789abcdef';

let server: MessagesServer;
beforeAll(async () => {
  server = await startMessagesServer({
    firstTextMs: FIRST_TEXT_MS,
    tokenMs: TOKEN_MS,
    tokens: TOKENS,
    cachedTokens: CACHED,
    apiKey: KEY,
  });
});
afterAll(() => server.close());

async function run(scenarioExtra: string, requests: number): Promise<SeenRequest[]> {
  const profile = resolveProfileText(
    `name: messages
scenarios:
  - name: s
    api: messages
    models: [${MODEL}]
    load: { mode: concurrency, concurrency: 1 }
    requests: ${requests}
${scenarioExtra}`,
    'messages.yaml',
  );
  return runRecording(profile, server.url, KEY);
}

const served = (record: RequestRecord) => servedFor(server.served, record);

describe('api: messages against an Anthropic Messages server', () => {
  it('sends an Anthropic body and counts tokens exactly from usage, cache reads included', async () => {
    const seen = await run(
      `    prompt: { input_tokens: ${INPUT_TOKENS}, output_tokens: ${TOKENS} }
    request: { temperature: 0, top_p: 0.9, stop: ["END"] }
    request_extra: { top_k: 5 }
`,
      4,
    );
    expect(seen).toHaveLength(4);
    for (const { record, values } of seen) {
      expect(record.errorMessage).toBeNull();
      const { body, promptTokens, headers } = served(record);
      expect(body).toEqual({
        model: MODEL,
        messages: [{ role: 'user', content: expect.any(String) }],
        max_tokens: TOKENS,
        stream: true,
        temperature: 0,
        top_p: 0.9,
        stop_sequences: ['END'],
        top_k: 5,
      });
      // Anthropic's headers, and the key never as a bearer token.
      expect(headers['x-api-key']).toBe(KEY);
      expect(headers['anthropic-version']).toBe('2023-06-01');
      expect(headers.authorization).toBeUndefined();
      // Token-exact prompt; the server split it into input_tokens 24 + cache_read_input_tokens 8.
      expect(promptTokens).toBe(INPUT_TOKENS);
      expect(values.input_tokens).toBe(INPUT_TOKENS);
      expect(values.cached_tokens).toBe(CACHED);
      expect(values.output_tokens).toBe(TOKENS);
      expect(values.tokensEstimated).toBe(false);
      // Our tokenizer's count of the received text agrees with usage.
      expect(values.tokenMismatch).toBe(0);
      expect(o200kTokenizer().count(record.outputText)).toBe(TOKENS);
      expect(record.outputText).toBe(' tok'.repeat(TOKENS));
      expect(record.finishReason).toBe('max_tokens');
      expect(record.responseId).toMatch(/^msg_/);
      // message_start, content_block_start, ping, 6 deltas, a ping, content_block_stop, message_delta,
      // message_stop: every event counted, only the deltas are tokens (the pings change nothing).
      expect(record.chunkCount).toBe(TOKENS + 7);
      expect(record.tokenChunkTimesUs).toHaveLength(TOKENS);
      expect(record.reasoningText).toBe('');
    }
  });

  it('puts the system prompt at the top level and maps tools and tool_choice to Anthropic shapes', async () => {
    const seen = await run(
      `    prompt: { input_tokens: ${INPUT_TOKENS}, output_tokens: ${TOKENS}, system: "Answer briefly." }
    request:
      tools: [{ type: function, function: { name: weather, description: "The weather", parameters: { type: object, properties: { city: { type: string } } } } }]
      tool_choice: required
      parallel_tool_calls: false
`,
      1,
    );
    const { record, values } = seen[0]!;
    expect(record.errorMessage).toBeNull();
    const { body, promptTokens } = served(record);
    expect(body.system).toBe('Answer briefly.');
    expect((body.messages as { role: string }[]).map((m) => m.role)).toEqual(['user']);
    expect(body.tools).toEqual([
      {
        name: 'weather',
        description: 'The weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(values.input_tokens).toBe(promptTokens);
    expect(promptTokens).toBe(INPUT_TOKENS + o200kTokenizer().count('Answer briefly.'));
  });

  it('reads a non-streaming message whole', async () => {
    const seen = await run(
      `    prompt: { input_tokens: ${INPUT_TOKENS}, output_tokens: ${TOKENS} }
    request: { stream: false }
`,
      2,
    );
    for (const { record, values } of seen) {
      expect(record.errorMessage).toBeNull();
      expect(served(record).body.stream).toBe(false);
      expect(record.outputText).toBe(' tok'.repeat(TOKENS));
      expect(record.finishReason).toBe('max_tokens');
      expect(values.output_tokens).toBe(TOKENS);
      expect(values.input_tokens).toBe(INPUT_TOKENS);
      expect(record.firstTokenUs).toBe(record.endUs);
      expect(values.ttft_us).toBeGreaterThanOrEqual(FIRST_TEXT_MS * 1000 - 1_000);
    }
  });
});

describe('api: messages conversations', () => {
  /** The bodies the server received, in order, for the records of one run (keyed by their request ids). */
  const bodies = (seen: SeenRequest[]) =>
    [...seen].sort((a, b) => a.record.sentUs - b.record.sentUs).map(({ record }) => served(record).body);

  it('sends a session’s later turn with the server’s answer as an assistant turn, system still at the top', async () => {
    const seen = await run(
      `    prompt: { input_tokens: ${INPUT_TOKENS}, output_tokens: ${TOKENS}, system: "Answer briefly." }
    session: { turns: 2, user_tokens: 8 }
`,
      1,
    );
    expect(seen.map(({ record }) => record.errorMessage)).toEqual([null, null]);
    const [first, second] = bodies(seen) as [Record<string, unknown>, Record<string, unknown>];
    expect(first.messages).toHaveLength(1);
    const turns = second.messages as { role: string; content: unknown }[];
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
    expect(turns[0]).toEqual((first.messages as unknown[])[0]);
    expect(turns[1]?.content).toBe(' tok'.repeat(TOKENS));
    expect(o200kTokenizer().count(turns[2]?.content as string)).toBe(8);
    expect(second).toMatchObject({ system: 'Answer briefly.', max_tokens: TOKENS, stream: true });
    // The session's prompt_cache_key (an OpenAI routing hint) is not sent.
    expect(second.prompt_cache_key).toBeUndefined();
    expect(second.max_completion_tokens).toBeUndefined();
  });

  it('answers a tool_use with a tool_result turn in a tool loop', async () => {
    const profile = resolveProfileText(
      `name: loop
scenarios:
  - name: s
    api: messages
    models: [${TOOL_MODEL}]
    load: { mode: concurrency, concurrency: 1 }
    requests: 1
    prompt: { input_tokens: ${INPUT_TOKENS}, output_tokens: ${TOKENS} }
    tool_loop: { max_rounds: 1, result_tokens: 8 }
    request:
      tools: [{ type: function, function: { name: weather, parameters: { type: object, properties: { city: { type: string } } } } }]
`,
      'loop.yaml',
    );
    const seen = await runRecording(profile, server.url, KEY);
    expect(seen.map(({ record }) => record.errorMessage)).toEqual([null, null]);
    const [, second] = bodies(seen);
    const turns = second?.messages as { role: string; content: { type: string; [key: string]: unknown }[] }[];
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
    expect(turns[1]?.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }]);
    expect(turns[2]?.content).toHaveLength(1);
    expect(turns[2]?.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
    expect(o200kTokenizer().count(turns[2]?.content[0]?.content as string)).toBe(8);
  });
});

describe('api: messages, one request at a time', () => {
  async function send(
    model: string,
    options: { stream?: boolean; apiKey?: string | null } = {},
  ): Promise<RequestRecord> {
    return sendOnce({
      baseUrl: server.url,
      api: 'messages',
      apiKey: options.apiKey === undefined ? KEY : options.apiKey,
      body: {
        model,
        messages: [{ role: 'user', content: 'hello there' }],
        max_tokens: 16,
        stream: options.stream ?? true,
      },
      prepare: (record) => {
        record.keepContent = true;
      },
    });
  }

  it('classifies an error event (overloaded_error) as stream_error, keeping the tokens before it', async () => {
    const record = await send(ERROR_EVENT_MODEL);
    expect(record.status).toBe(200);
    expect(record.errorClass).toBe('stream_error');
    expect(record.errorMessage).toBe('Overloaded');
    expect(record.errorCode).toBe('overloaded_error');
    expect(record.tokenChunkTimesUs).toHaveLength(2);
    expect(record.outputText).toBe(' tok tok');
  });

  it('classifies HTTP 529 overloaded as a server error, with Anthropic’s message and error type', async () => {
    const record = await send(OVERLOADED_MODEL);
    expect(record.status).toBe(529);
    expect(record.errorClass).toBe('http_5xx');
    expect(record.errorMessage).toBe('Overloaded');
    expect(record.errorCode).toBe('overloaded_error');
  });

  it('reads a 404 and a wrong key from Anthropic’s error body', async () => {
    const missing = await send('no-such-model');
    expect(missing.errorClass).toBe('http_4xx');
    expect(missing.errorMessage).toBe('model: no-such-model');
    expect(missing.errorCode).toBe('not_found_error');
    const unauthorized = await send(MODEL, { apiKey: 'sk-ant-wrong' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.errorCode).toBe('authentication_error');
  });

  it('reads thinking as reasoning: a token, but not the first answer token', async () => {
    const record = await send(THINKING_MODEL);
    expect(record.errorClass).toBeNull();
    expect(record.reasoningText).toBe(' think more');
    expect(record.outputText).toBe(' tok'.repeat(TOKENS));
    expect(record.content).toBe(' tok'.repeat(TOKENS));
    // Two thinking deltas (the signature_delta is none), then the text deltas.
    expect(record.tokenChunkTimesUs).toHaveLength(TOKENS + 2);
    // TTFT at the first thinking delta, the first answer token at the first text delta (the third token):
    // read from the record's own stamps, not from the server's gap between them (a loaded machine can
    // deliver both at once).
    expect(record.firstTokenUs).toBe(record.tokenChunkTimesUs[0]);
    expect(record.firstOutputUs).toBe(record.tokenChunkTimesUs[2]);
    expect(record.usage?.completion_tokens).toBe(TOKENS + 2);
  });

  it('assembles a streamed tool_use block into a tool call, and reads a whole one', async () => {
    const streamed = await send(TOOL_MODEL);
    expect(streamed.errorClass).toBeNull();
    expect(streamed.toolCalls).toEqual([{ id: 'toolu_1', name: 'weather', arguments: '{"city": "Paris"}' }]);
    expect(streamed.finishReason).toBe('tool_use');
    // The name (content_block_start) and the two argument pieces.
    expect(streamed.tokenChunkTimesUs).toHaveLength(3);
    expect(streamed.firstOutputUs).toBe(streamed.firstTokenUs);
    const whole = await send(TOOL_MODEL, { stream: false });
    expect(whole.errorClass).toBeNull();
    expect(whole.toolCalls).toEqual([{ id: 'toolu_1', name: 'weather', arguments: '{"city":"Paris"}' }]);
    expect(whole.finishReason).toBe('tool_use');
  });
});

describe('api: messages from the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-messages-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function filesUnder(path: string): string[] {
    return readdirSync(path).flatMap((name) => {
      const full = join(path, name);
      return statSync(full).isDirectory() ? filesUnder(full) : [full];
    });
  }

  it('sends the key from the environment as x-api-key (from two worker threads, models: all too), and writes it to no output file', {
    tags: ['slow'],
  }, async () => {
    const path = join(dir, 'key.yaml');
    writeFileSync(
      path,
      `name: k\ntarget: { api_key_env: ANTHROPIC_KEY_FOR_TEST }\nscenarios:\n  - name: m\n    api: messages\n    models: all\n    requests: 4\n    load: { mode: concurrency, concurrency: 2 }\n    prompt: { input_tokens: ${INPUT_TOKENS}, output_tokens: ${TOKENS} }\n`,
    );
    const out = join(dir, 'key-out');
    const before = server.requests.length;
    const result = await runCliInProcess(
      ['run', path, '--base-url', server.url, '--workers', '2', '--out', out, '--quiet'],
      {
        env: { ANTHROPIC_KEY_FOR_TEST: KEY },
      },
    );
    expect(result.stderr).not.toContain('every request failed');
    expect(result.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.groups[0].requests.ok).toBe(4);
    // models: all listed the models as Anthropic asks: x-api-key and anthropic-version.
    expect(summary.groups[0].model).toBe(MODEL);
    // requests.csv keeps Anthropic's own id header (request-id) as the server's id of each request.
    const rows = parse(readFileSync(join(out, 'requests.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const ids = rows.map((row) => row.server_request_id);
    expect(ids).toHaveLength(4);
    for (const id of ids) expect(id).toMatch(/^req_\d+$/);
    expect(summary.groups[0].metrics.input_tokens).toMatchObject({ count: 4, min: INPUT_TOKENS, max: INPUT_TOKENS });
    // Every request of the run (the models pre-flight too) carried the key as Anthropic takes it; only the
    // public catalog (GET /public/v1/models, which takes no key) went without.
    const sent = server.requests.slice(before).filter((request) => !request.url.startsWith('/public/'));
    const lines = sent.map((request) => `${request.method} ${request.url}`);
    // Each worker thread checks the model with GET /v1/models first.
    expect(new Set(lines)).toEqual(new Set(['GET /v1/models', 'POST /v1/messages']));
    expect(lines.filter((line) => line === 'POST /v1/messages')).toHaveLength(4);
    for (const request of sent) {
      expect(request.headers['x-api-key']).toBe(KEY);
      expect(request.headers.authorization).toBeUndefined();
    }
    const files = filesUnder(out);
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) expect(readFileSync(file, 'latin1'), file).not.toContain(KEY);
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('is refused before the emulator starts: it serves only chat completions (exit 3)', async () => {
    const path = join(dir, 'p.yaml');
    writeFileSync(path, 'name: c\nscenarios:\n  - { name: raw, api: messages, requests: 1 }\n');
    const result = await runCliInProcess(['run', path, '--out', join(dir, 'out'), '--quiet']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'scenario raw has api: messages, but the embedded emulator serves only chat completions (POST /v1/chat/completions), like the service it emulates: POST /v1/messages answers 404 there',
    );
  });
});
