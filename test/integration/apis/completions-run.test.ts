/**
 * inferbench with `api: completions` against the purpose-built completions server (known timing and
 * token counts, checked against the openai SDK in completions-sdk.test.ts), over real sockets: the body
 * it sends (prompt, max_tokens, no messages), token counts exact from usage and from the client's own
 * tokenizer, TTFT at the first non-empty text (the server's empty first event is no token) and within a
 * millisecond of the server's write of that event (both stamped on this process's performance clock),
 * non-streaming answers, and a non-200 and a mid-stream error classified. The CLI refuses api:
 * completions against the embedded emulator before it starts it. Only the TTFT test is tagged `timing` (it
 * runs alone, on a quiet machine); the others run side by side.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/client/request-record.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { o200kTokenizer } from '../../../src/util/tokenizer.js';
import { runCliInProcess } from '../../helpers/cli.js';
import {
  type CompletionsServer,
  ERROR_MIDSTREAM_MODEL,
  MODEL,
  startCompletionsServer,
} from '../../helpers/completions-server.js';
import { median, runRecording, servedFor, type SeenRequest, sendOnce } from '../../helpers/recorded-run.js';

const FIRST_TEXT_MS = 40;
const TOKEN_MS = 4;
const TOKENS = 6;
const INPUT_TOKENS = 32;

let server: CompletionsServer;
beforeAll(async () => {
  server = await startCompletionsServer({ firstTextMs: FIRST_TEXT_MS, tokenMs: TOKEN_MS, tokens: TOKENS });
});
afterAll(() => server.close());

async function run(extra: string, requests: number): Promise<SeenRequest[]> {
  const profile = resolveProfileText(
    `name: completions
target: { base_url: ${server.url}${extra.includes('stream_usage') ? ', stream_usage: false' : ''} }
scenarios:
  - name: s
    api: completions
    models: [${MODEL}]
    load: { mode: concurrency, concurrency: 1 }
    requests: ${requests}
    prompt: { input_tokens: ${INPUT_TOKENS}, output_tokens: ${TOKENS} }
    request: { temperature: 0${extra.includes('no-stream') ? ', stream: false' : ''} }
`,
    'completions.yaml',
  );
  return runRecording(profile, server.url);
}

const served = (record: RequestRecord) => servedFor(server.served, record);

describe('api: completions against a completions server', () => {
  it('sends the prompt as one text with max_tokens, and counts its tokens exactly from usage', async () => {
    const seen = await run('', 8);
    expect(seen).toHaveLength(8);
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      const { body, promptTokens } = served(record);
      expect(body.messages).toBeUndefined();
      expect(body.max_completion_tokens).toBeUndefined();
      expect(body).toMatchObject({ model: MODEL, max_tokens: TOKENS, temperature: 0, stream: true });
      expect(body.stream_options).toEqual({ include_usage: true });
      // Token-exact: the server's own count of the prompt it received is what the workload built.
      expect(promptTokens).toBe(INPUT_TOKENS);
      expect(values.input_tokens).toBe(INPUT_TOKENS);
      expect(values.output_tokens).toBe(TOKENS);
      expect(values.tokensEstimated).toBe(false);
      expect(values.tokenMismatch).toBe(0);
      expect(record.outputText).toBe(' tok'.repeat(TOKENS));
      expect(record.finishReason).toBe('length');
      // Events: the empty first one, six tokens, the empty one with finish_reason, usage.
      expect(record.chunkCount).toBe(TOKENS + 3);
      expect(record.tokenChunkTimesUs).toHaveLength(TOKENS);
      expect(record.firstOutputUs).toBe(record.firstTokenUs);
    }
  });

  it('stamps TTFT at the first non-empty text, within a millisecond of the server writing it', {
    tags: ['timing'],
  }, async () => {
    const seen = await run('', 10);
    const lags: number[] = [];
    const itlLags: number[] = [];
    const emptyFirstUs: number[] = [];
    for (const { record, values } of seen) {
      const { arrivedUs, textWrittenUs } = served(record);
      // The empty event came first; the first token not before FIRST_TEXT_MS, on both sides.
      expect(record.firstChunkUs).toBeLessThan(record.firstTokenUs);
      emptyFirstUs.push(record.firstTokenUs - record.firstChunkUs);
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
    // The empty event at once, well before the first token (the median of ten: a fresh clone's process once
    // stalled 33 ms right after a request arrived, and read the empty event 7 ms before the first token).
    expect(median(emptyFirstUs)).toBeGreaterThan(30_000);
    // Within a millisecond (the median of ten: a loaded machine may deschedule the process once or twice).
    expect(median(lags)).toBeLessThanOrEqual(1_000);
    expect(median(itlLags)).toBeLessThanOrEqual(1_000);
  });

  it('counts with its own tokenizer exactly when the server sends no usage', async () => {
    const seen = await run('stream_usage', 2);
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      expect(served(record).body.stream_options).toBeUndefined();
      expect(record.usage).toBeNull();
      expect(values.tokensEstimated).toBe(true);
      expect(values.output_tokens).toBe(TOKENS);
      expect(values.input_tokens).toBe(INPUT_TOKENS);
      expect(o200kTokenizer().count(record.outputText)).toBe(TOKENS);
    }
  });

  it('reads a non-streaming answer whole', async () => {
    const seen = await run('no-stream', 2);
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      expect(served(record).body.stream).toBe(false);
      expect(record.outputText).toBe(' tok'.repeat(TOKENS));
      expect(values.output_tokens).toBe(TOKENS);
      expect(values.input_tokens).toBe(INPUT_TOKENS);
      expect(record.firstTokenUs).toBe(record.endUs);
      expect(values.ttft_us).toBeGreaterThanOrEqual(FIRST_TEXT_MS * 1000 - 1_000);
    }
  });
});

describe('api: completions errors', () => {
  const send = (model: string): Promise<RequestRecord> =>
    sendOnce({
      baseUrl: server.url,
      api: 'completions',
      body: { model, prompt: 'hello there', max_tokens: 6, stream: true },
    });

  it('classifies a 404 with the server message', async () => {
    const record = await send('no-such-model');
    expect(record.status).toBe(404);
    expect(record.errorClass).toBe('http_4xx');
    expect(record.errorMessage).toBe('The model `no-such-model` does not exist.');
  });

  it('classifies an error event in the stream as stream_error, keeping the tokens before it', async () => {
    const record = await send(ERROR_MIDSTREAM_MODEL);
    expect(record.status).toBe(200);
    expect(record.errorClass).toBe('stream_error');
    expect(record.errorMessage).toBe('engine failed mid-stream');
    expect(record.errorCode).toBe('engine_error');
    expect(record.tokenChunkTimesUs).toHaveLength(2);
    expect(record.outputText).toBe(' tok tok');
  });
});

describe('api: completions from the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-api-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs in two worker threads and writes the exact counts to summary.json', async () => {
    const path = join(dir, 'workers.yaml');
    writeFileSync(
      path,
      `name: w\nscenarios:\n  - name: raw\n    api: completions\n    models: [${MODEL}]\n    requests: 8\n    load: { mode: concurrency, concurrency: 2 }\n    prompt: { input_tokens: ${INPUT_TOKENS}, output_tokens: ${TOKENS} }\n`,
    );
    const out = join(dir, 'workers-out');
    const result = await runCliInProcess([
      'run',
      path,
      '--base-url',
      server.url,
      '--workers',
      '2',
      '--out',
      out,
      '--quiet',
    ]);
    expect(result.stderr).not.toContain('every request failed');
    expect(result.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const group = summary.groups[0];
    expect(group.requests.ok).toBe(8);
    expect(group.metrics.output_tokens).toMatchObject({ count: 8, min: TOKENS, max: TOKENS });
    expect(group.metrics.input_tokens).toMatchObject({ count: 8, min: INPUT_TOKENS, max: INPUT_TOKENS });
    expect(group.metrics.ttft_ms.min).toBeGreaterThanOrEqual(FIRST_TEXT_MS - 1);
  });

  it('is refused before the emulator starts: it serves only chat completions (exit 3)', async () => {
    const path = join(dir, 'p.yaml');
    writeFileSync(path, 'name: c\nscenarios:\n  - { name: raw, api: completions, requests: 1 }\n');
    const result = await runCliInProcess(['run', path, '--out', join(dir, 'out'), '--quiet']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'scenario raw has api: completions, but the embedded emulator serves only chat completions (POST /v1/chat/completions), like the service it emulates: POST /v1/completions answers 404 there',
    );
  });
});
