/**
 * inferbench with `api: responses` against the purpose-built Responses server (known timing and token
 * counts, checked against the openai SDK in responses-sdk.test.ts), over real sockets: the body it sends
 * (input, max_output_tokens, no messages, no stream_options), token counts exact from the usage of
 * response.incomplete / response.completed and from the client's own tokenizer, TTFT at the first
 * output_text.delta (the bookkeeping events before it are no token) and within a millisecond of the
 * server's write of that event (both stamped on this process's performance clock), reasoning deltas as
 * reasoning, a function call's name and argument deltas as a tool call that the answer checks validate,
 * a session's and a tool loop's later turns as input items, non-streaming answers, and response.failed,
 * an error event and a 404 classified. The CLI refuses api: responses against the embedded emulator
 * before it starts it. Only the TTFT test is tagged `timing` (it runs alone, on a quiet machine); the others
 * run side by side.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/client/request-record.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { o200kTokenizer } from '../../../src/util/tokenizer.js';
import { runCliInProcess } from '../../helpers/cli.js';
import {
  ERROR_EVENT_MODEL,
  FAILED_MODEL,
  MODEL,
  NO_USAGE_MODEL,
  REASONING_MODEL,
  type ResponsesServer,
  startResponsesServer,
  TOOL_MODEL,
  toolArgumentDeltas,
} from '../../helpers/responses-server.js';
import { median, runRecording, servedFor, type SeenRequest, sendOnce } from '../../helpers/recorded-run.js';

const FIRST_TEXT_MS = 40;
const TOKEN_MS = 4;
const TOKENS = 6;
const REASONING_TOKENS = 3;
const INPUT_TOKENS = 32;
const CACHED_TOKENS = 4;
/** Events before the first text (created, in_progress, item added, part added) and after the last (text done, part done, item done, incomplete). */
const BOOKKEEPING_EVENTS = 8;

let server: ResponsesServer;
beforeAll(async () => {
  server = await startResponsesServer({
    firstTextMs: FIRST_TEXT_MS,
    tokenMs: TOKEN_MS,
    tokens: TOKENS,
    reasoningTokens: REASONING_TOKENS,
    cachedTokens: CACHED_TOKENS,
  });
});
afterAll(() => server.close());

interface RunOptions {
  readonly model?: string;
  readonly requests: number;
  /** Sets output_tokens (max_output_tokens) to TOKENS; without it the answer completes. */
  readonly capped?: boolean;
  readonly request?: string;
  /** More scenario keys (a session, a tool loop), one per line at the scenario's indentation. */
  readonly scenario?: string;
}

async function run(options: RunOptions): Promise<SeenRequest[]> {
  const output = options.capped === false ? '' : `, output_tokens: ${TOKENS}`;
  const profile = resolveProfileText(
    `name: responses
target: { base_url: ${server.url} }
scenarios:
  - name: s
    api: responses
    models: [${options.model ?? MODEL}]
    load: { mode: concurrency, concurrency: 1 }
    requests: ${options.requests}
    prompt: { input_tokens: ${INPUT_TOKENS}${output} }
    request: { temperature: 0${options.request ?? ''} }
${options.scenario ?? ''}`,
    'responses.yaml',
  );
  return runRecording(profile, server.url);
}

const served = (record: RequestRecord) => servedFor(server.served, record);

describe('api: responses against a Responses server', () => {
  it('sends the prompt as input with max_output_tokens, and counts its tokens exactly from usage', async () => {
    const seen = await run({ requests: 8 });
    expect(seen).toHaveLength(8);
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      const { body, inputTokens } = served(record);
      expect(body.messages).toBeUndefined();
      expect(body.max_completion_tokens).toBeUndefined();
      // Usage comes in response.completed: chat's include_usage is no Responses field.
      expect(body.stream_options).toBeUndefined();
      expect(body).toMatchObject({ model: MODEL, max_output_tokens: TOKENS, temperature: 0, stream: true });
      expect(typeof body.input).toBe('string');
      // Token-exact: the server's own count of the input it received is what the workload built.
      expect(inputTokens).toBe(INPUT_TOKENS);
      expect(values.input_tokens).toBe(INPUT_TOKENS);
      expect(values.output_tokens).toBe(TOKENS);
      expect(values.tokensEstimated).toBe(false);
      expect(values.tokenMismatch).toBe(0);
      expect(record.usage).toEqual({
        prompt_tokens: INPUT_TOKENS,
        completion_tokens: TOKENS,
        total_tokens: INPUT_TOKENS + TOKENS,
        prompt_tokens_details: { cached_tokens: CACHED_TOKENS },
        completion_tokens_details: { reasoning_tokens: 0 },
      });
      expect(record.outputText).toBe(' tok'.repeat(TOKENS));
      expect(o200kTokenizer().count(record.outputText)).toBe(TOKENS);
      // response.incomplete with reason max_output_tokens: cut at the limit, not an error.
      expect(record.finishReason).toBe('length');
      expect(record.responseId).toMatch(/^resp_/);
      expect(record.chunkCount).toBe(TOKENS + BOOKKEEPING_EVENTS);
      expect(record.tokenChunkTimesUs).toHaveLength(TOKENS);
      expect(record.firstOutputUs).toBe(record.firstTokenUs);
    }
  });

  it('stamps TTFT at the first output_text.delta, within a millisecond of the server writing it', {
    tags: ['timing'],
  }, async () => {
    const seen = await run({ requests: 10 });
    const lags: number[] = [];
    const itlLags: number[] = [];
    for (const { record, values } of seen) {
      const { arrivedUs, textWrittenUs } = served(record);
      // The bookkeeping events were read before the server even wrote the first text: they are no token.
      expect(record.firstChunkUs).toBeLessThan(textWrittenUs[0]!);
      // The first token not before FIRST_TEXT_MS, on both sides.
      expect(textWrittenUs[0]! - arrivedUs).toBeGreaterThanOrEqual(FIRST_TEXT_MS * 1000 - 1_000);
      expect(values.ttft_us).toBe(record.firstTokenUs - record.latencyStartUs);
      expect(values.ttft_us).toBeGreaterThanOrEqual(FIRST_TEXT_MS * 1000 - 1_000);
      // One clock in one process: the client cannot see an event before it was written.
      expect(textWrittenUs).toHaveLength(TOKENS);
      textWrittenUs.forEach((writtenUs, t) => {
        const lag = (record.tokenChunkTimesUs[t] as number) - writtenUs;
        expect(lag).toBeGreaterThanOrEqual(0);
        (t === 0 ? lags : itlLags).push(lag);
      });
    }
    // Within a millisecond (the median of ten: a loaded machine may deschedule the process once or twice).
    expect(median(lags)).toBeLessThanOrEqual(1_000);
    expect(median(itlLags)).toBeLessThanOrEqual(1_000);
  });

  it('counts with its own tokenizer exactly when the server sends no usage', async () => {
    const seen = await run({ model: NO_USAGE_MODEL, requests: 2 });
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      expect(record.usage).toBeNull();
      expect(values.tokensEstimated).toBe(true);
      expect(values.output_tokens).toBe(TOKENS);
      expect(values.input_tokens).toBe(INPUT_TOKENS);
    }
  });

  it('reads reasoning summary deltas as reasoning: TTFT at the first of them, the answer after', async () => {
    const seen = await run({ model: REASONING_MODEL, requests: 2, capped: false });
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      expect(record.reasoningText).toBe(' tok'.repeat(REASONING_TOKENS));
      expect(record.outputText).toBe(' tok'.repeat(TOKENS));
      expect(record.finishReason).toBe('stop');
      expect(record.usage?.completion_tokens_details).toEqual({ reasoning_tokens: REASONING_TOKENS });
      expect(values.output_tokens).toBe(REASONING_TOKENS + TOKENS);
      expect(record.tokenChunkTimesUs).toHaveLength(REASONING_TOKENS + TOKENS);
      const { textWrittenUs } = served(record);
      // The first token is the first reasoning delta; the first answer text is the fourth token event.
      expect(record.firstTokenUs).toBe(record.tokenChunkTimesUs[0]);
      expect(record.firstOutputUs).toBe(record.tokenChunkTimesUs[REASONING_TOKENS]);
      expect(record.firstOutputUs).toBeGreaterThanOrEqual(textWrittenUs[REASONING_TOKENS] as number);
    }
  });

  it('assembles a function call from its item and argument deltas, and checks it against the tool', async () => {
    const seen = await run({
      model: TOOL_MODEL,
      requests: 2,
      capped: false,
      request:
        ', tools: [{ type: function, function: { name: get_weather, parameters: { type: object, additionalProperties: { type: integer } } } }]',
    });
    for (const { record } of seen) {
      expect(record.errorClass).toBeNull();
      const { body } = served(record);
      expect(body.tools).toEqual([
        {
          type: 'function',
          name: 'get_weather',
          parameters: { type: 'object', additionalProperties: { type: 'integer' } },
          strict: false,
        },
      ]);
      expect(record.toolCalls).toEqual([
        { id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: toolArgumentDeltas(TOKENS).join('') },
      ]);
      expect(record.finishReason).toBe('tool_calls');
      // The item naming the function is the first token, then one per argument delta.
      expect(record.tokenChunkTimesUs).toHaveLength(TOKENS + 1);
      expect(record.firstOutputUs).toBe(record.firstTokenUs);
      expect(record.checks).toEqual([{ name: 'tool_arguments', passed: true, message: null }]);
    }
  });

  it('checks the answer against text.format when response_format asks for JSON', async () => {
    const seen = await run({ requests: 1, request: ', response_format: { type: json_object }' });
    const { record } = seen[0]!;
    expect(served(record).body.text).toEqual({ format: { type: 'json_object' } });
    expect(served(record).body.response_format).toBeUndefined();
    // The server answers " tok tok ...", cut at max_output_tokens: not JSON, and the check says why.
    expect(record.checks).toEqual([
      { name: 'json_schema', passed: false, message: expect.stringMatching(/^answer cut off .*content not JSON/) },
    ]);
  });

  it("sends a session's later turn as input items: the history with the server's real answer", async () => {
    const seen = await run({ requests: 1, scenario: '    session: { turns: 2, user_tokens: 8, think_time: 0s }\n' });
    expect(seen).toHaveLength(2);
    const [first, second] = seen.map(({ record }) => served(record).body);
    expect(typeof first?.input).toBe('string');
    expect(second?.input).toEqual([
      { role: 'user', content: first?.input },
      { role: 'assistant', content: ' tok'.repeat(TOKENS) },
      { role: 'user', content: expect.any(String) },
    ]);
    expect(second?.stream_options).toBeUndefined();
    const last = (second?.input as { content: string }[] | undefined)?.[2]?.content ?? '';
    expect(o200kTokenizer().count(last)).toBe(8);
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      expect(values.input_tokens).toBe(served(record).inputTokens);
    }
    expect(seen[1]?.record.expectedInputTokens).toBe(INPUT_TOKENS + TOKENS + 8);
  });

  it("sends a tool loop's call and result as function_call and function_call_output items", async () => {
    const seen = await run({
      model: TOOL_MODEL,
      requests: 1,
      capped: false,
      request: ', tools: [{ type: function, function: { name: get_weather, parameters: { type: object } } }]',
      scenario: '    tool_loop: { max_rounds: 1, result_tokens: 8 }\n',
    });
    expect(seen).toHaveLength(2);
    const call = seen[0]!.record.toolCalls?.[0];
    expect(call?.id).toMatch(/^call_/);
    const [first, second] = seen.map(({ record }) => served(record).body);
    expect(second?.input).toEqual([
      { role: 'user', content: first?.input },
      { type: 'function_call', call_id: call?.id, name: 'get_weather', arguments: toolArgumentDeltas(TOKENS).join('') },
      { type: 'function_call_output', call_id: call?.id, output: expect.any(String) },
    ]);
    expect(seen[1]?.record.errorClass).toBeNull();
  });

  it('reads a non-streaming answer whole', async () => {
    const seen = await run({ requests: 2, request: ', stream: false' });
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      expect(served(record).body.stream).toBe(false);
      expect(record.outputText).toBe(' tok'.repeat(TOKENS));
      expect(record.finishReason).toBe('length');
      expect(values.output_tokens).toBe(TOKENS);
      expect(values.input_tokens).toBe(INPUT_TOKENS);
      expect(values.tokensEstimated).toBe(false);
      expect(record.firstTokenUs).toBe(record.endUs);
      expect(values.ttft_us).toBeGreaterThanOrEqual(FIRST_TEXT_MS * 1000 - 1_000);
    }
  });
});

describe('api: responses errors', () => {
  const send = (model: string): Promise<RequestRecord> =>
    sendOnce({
      baseUrl: server.url,
      api: 'responses',
      body: { model, input: 'hello there', max_output_tokens: 6, stream: true },
    });

  it('classifies a 404 with the server message', async () => {
    const record = await send('no-such-model');
    expect(record.status).toBe(404);
    expect(record.errorClass).toBe('http_4xx');
    expect(record.errorMessage).toBe('The model `no-such-model` does not exist.');
  });

  it('classifies response.failed as stream_error with its code, keeping the tokens before it', async () => {
    const record = await send(FAILED_MODEL);
    expect(record.status).toBe(200);
    expect(record.errorClass).toBe('stream_error');
    expect(record.errorMessage).toBe('engine failed mid-stream');
    expect(record.errorCode).toBe('server_error');
    expect(record.tokenChunkTimesUs).toHaveLength(2);
    expect(record.outputText).toBe(' tok tok');
  });

  it('classifies an error event as stream_error with its code', async () => {
    const record = await send(ERROR_EVENT_MODEL);
    expect(record.errorClass).toBe('stream_error');
    expect(record.errorMessage).toBe('engine failed mid-stream');
    expect(record.errorCode).toBe('engine_error');
    expect(record.outputText).toBe(' tok tok');
  });
});

describe('api: responses from the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-responses-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is refused before the emulator starts: it serves only chat completions (exit 3)', async () => {
    const path = join(dir, 'p.yaml');
    writeFileSync(path, 'name: r\nscenarios:\n  - { name: raw, api: responses, requests: 1 }\n');
    const result = await runCliInProcess(['run', path, '--out', join(dir, 'out'), '--quiet']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'scenario raw has api: responses, but the embedded emulator serves only chat completions (POST /v1/chat/completions), like the service it emulates: POST /v1/responses answers 404 there',
    );
  });
});
