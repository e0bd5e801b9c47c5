/**
 * inferbench with `api: embeddings` against the purpose-built embeddings server (known latency and o200k
 * token counts, checked against the openai SDK in embeddings-sdk.test.ts), over real sockets: the body it
 * sends (model, input: one text or inputs_per_request texts, each token-exact; encoding_format float; no
 * generation fields), input tokens exact from usage and from the client's tokenizer, no output tokens and
 * no TTFT (NaN, never 0), e2e within a millisecond of the server's write of the answer (one clock), a
 * count mismatch, a 404 and base64 answers; summary.json and summary.csv of a CLI run (e2e, inputs/s = N x
 * requests/s, input tokens/s, no TTFT or ITL, thresholds on them); the embedded emulator refused (exit 3).
 * Only the e2e-accuracy test is tagged `timing` (it runs alone, on a quiet machine); the others run side by
 * side.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/client/request-record.js';
import type { RecordedValues } from '../../../src/metrics/request-values.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { parseCsvRecords } from '../../../src/util/csv-records.js';
import { o200kTokenizer } from '../../../src/util/tokenizer.js';
import { runCliInProcess } from '../../helpers/cli.js';
import {
  type EmbeddingsServer,
  MODEL,
  NO_USAGE_MODEL,
  SHORT_MODEL,
  startEmbeddingsServer,
} from '../../helpers/embeddings-server.js';
import { median, runRecording, servedFor, type SeenRequest, sendOnce } from '../../helpers/recorded-run.js';

const LATENCY_MS = 20;
const INPUT_TOKENS = 24;

let server: EmbeddingsServer;
beforeAll(async () => {
  server = await startEmbeddingsServer({ latencyMs: LATENCY_MS });
});
afterAll(() => server.close());

async function run(options: { inputs?: number; model?: string; requests: number }): Promise<SeenRequest[]> {
  const profile = resolveProfileText(
    `name: embeddings
target: { base_url: ${server.url} }
scenarios:
  - name: s
    api: embeddings
    models: [${options.model ?? MODEL}]
    load: { mode: concurrency, concurrency: 1 }
    requests: ${options.requests}
    prompt: { input_tokens: ${INPUT_TOKENS} }
${options.inputs === undefined ? '' : `    inputs_per_request: ${options.inputs}\n`}`,
    'embeddings.yaml',
  );
  return runRecording(profile, server.url);
}

const served = (record: RequestRecord) => servedFor(server.served, record);

/** Nothing generated: every generation metric is NaN (absent from the histograms), never 0. */
function expectNoGeneration(values: RecordedValues): void {
  expect(values.ttft_us).toBeNaN();
  expect(values.ttfo_us).toBeNaN();
  expect(values.tpot_us).toBeNaN();
  expect(values.decode_tps_x1000).toBeNaN();
  expect(values.output_tokens).toBeNaN();
  expect(values.reasoning_tokens).toBeNaN();
  expect(values.itlMeanUs).toBeNaN();
}

describe('api: embeddings against an embeddings server', () => {
  it('sends inputs_per_request token-exact texts as input, and counts their tokens exactly from usage', async () => {
    const seen = await run({ inputs: 4, requests: 6 });
    expect(seen).toHaveLength(6);
    const texts = new Set<string>();
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      const { body, inputs, promptTokens } = served(record);
      expect(Object.keys(body).sort()).toEqual(['encoding_format', 'input', 'model']);
      expect(body).toMatchObject({ model: MODEL, encoding_format: 'float' });
      expect(inputs).toHaveLength(4);
      for (const input of inputs) {
        expect(o200kTokenizer().count(input)).toBe(INPUT_TOKENS);
        texts.add(input);
      }
      expect(record.inputs).toBe(4);
      expect(promptTokens).toBe(4 * INPUT_TOKENS);
      expect(values.input_tokens).toBe(4 * INPUT_TOKENS);
      expect(values.tokensEstimated).toBe(false);
      expectNoGeneration(values);
      expect(record.firstTokenUs).toBeNaN();
      expect(record.tokenChunkTimesUs).toHaveLength(0);
    }
    // Every input of every request is its own prompt.
    expect(texts.size).toBe(24);
  });

  it('sends one input as a string by default: the prompts a batch of requests 0.. starts with', async () => {
    const seen = await run({ requests: 3 });
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      expect(typeof served(record).body.input).toBe('string');
      expect(record.inputs).toBe(1);
      expect(values.input_tokens).toBe(INPUT_TOKENS);
    }
    // Request 0 of a 3-input batch sends prompts 0, 1, 2: those of requests 0, 1, 2 with one input each.
    const [batch] = await run({ inputs: 3, requests: 1 });
    expect(served(batch!.record).inputs).toEqual(seen.map(({ record }) => served(record).body.input));
  });

  it('counts input tokens with its own tokenizer, flagged estimated, when the server sends no usage', async () => {
    const seen = await run({ inputs: 3, requests: 2, model: NO_USAGE_MODEL });
    for (const { record, values } of seen) {
      expect(record.errorClass).toBeNull();
      expect(record.usage).toBeNull();
      expect(values.tokensEstimated).toBe(true);
      expect(values.input_tokens).toBe(3 * INPUT_TOKENS);
      expectNoGeneration(values);
    }
  });

  it('measures e2e to the answer, within a millisecond of the server writing it', { tags: ['timing'] }, async () => {
    const seen = await run({ inputs: 2, requests: 10 });
    const lags: number[] = [];
    for (const { record, values } of seen) {
      const { arrivedUs, writtenUs } = served(record);
      expect(writtenUs - arrivedUs).toBeGreaterThanOrEqual(LATENCY_MS * 1000 - 1_000);
      expect(values.e2e_us).toBe(record.endUs - record.latencyStartUs);
      expect(values.e2e_us).toBeGreaterThanOrEqual(LATENCY_MS * 1000 - 1_000);
      // One clock in one process: the client cannot see the answer before it was written.
      const lag = record.endUs - writtenUs;
      expect(lag).toBeGreaterThanOrEqual(0);
      lags.push(lag);
    }
    // The median of ten: a loaded machine may deschedule the process once or twice.
    expect(median(lags)).toBeLessThanOrEqual(1_000);
  });

  it('fails an answer with fewer embeddings than inputs as a count mismatch (bad_chunk)', async () => {
    const seen = await run({ inputs: 4, requests: 2, model: SHORT_MODEL });
    for (const { record } of seen) {
      expect(record.status).toBe(200);
      expect(record.errorClass).toBe('bad_chunk');
      expect(record.errorCode).toBe('embeddings_count');
      expect(record.errorMessage).toBe('3 embeddings in 3 data items for 4 inputs sent');
    }
  });
});

describe('api: embeddings responses read by the client', () => {
  const send = (body: Record<string, unknown>, inputs: number): Promise<RequestRecord> =>
    sendOnce({
      baseUrl: server.url,
      api: 'embeddings',
      body,
      prepare: (record) => {
        record.inputs = inputs;
      },
    });

  it('reads base64 embeddings (the openai SDK default) as it reads floats', async () => {
    const record = await send({ model: MODEL, input: ['one', 'two'], encoding_format: 'base64' }, 2);
    expect(record.errorClass).toBeNull();
    expect(served(record).body.encoding_format).toBe('base64');
    expect(record.usage?.prompt_tokens).toBe(2);
    expect(record.usage?.completion_tokens).toBeNaN();
  });

  it('classifies a 404 with the server message', async () => {
    const record = await send({ model: 'no-such-model', input: 'hello' }, 1);
    expect(record.status).toBe(404);
    expect(record.errorClass).toBe('http_4xx');
    expect(record.errorMessage).toBe('The model `no-such-model` does not exist.');
  });
});

describe('api: embeddings from the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-embeddings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const runCli = async (name: string, workers: string) => {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(
      path,
      `name: e
scenarios:
  - name: vectors
    api: embeddings
    models: [${MODEL}]
    requests: 12
    inputs_per_request: 4
    load: { mode: concurrency, concurrency: 2 }
    prompt: { input_tokens: ${INPUT_TOKENS} }
thresholds: ["e2e_ms.p99 < 5000", "inputs_per_s > 1", "input_tokens_per_s > 1"]
`,
    );
    const out = join(dir, name);
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--workers', workers, '--out', out]);
    return { out, result };
  };

  it('writes e2e, inputs/s = 4 x requests/s and input tokens/s, and no TTFT, ITL or output tokens', async () => {
    const { out, result } = await runCli('a', '2');
    expect(result.stderr).not.toContain('every request failed');
    expect(result.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const group = summary.groups[0];
    expect(group.requests.ok).toBe(12);
    expect(Object.keys(group.metrics).sort()).toEqual(
      ['e2e_ms', 'input_tokens', 'schedule_lag_ms', 'ttfb_ms']
        .concat(Object.keys(group.metrics).filter((m: string) => m === 'connect_ms'))
        .sort(),
    );
    expect(group.metrics.input_tokens).toMatchObject({ count: 12, min: 4 * INPUT_TOKENS, max: 4 * INPUT_TOKENS });
    expect(group.metrics.e2e_ms.count).toBe(12);
    expect(group.metrics.e2e_ms.min).toBeGreaterThanOrEqual(LATENCY_MS - 1);
    const { requests_per_s, inputs_per_s, input_tokens_per_s, output_tokens_per_s } = group.throughput;
    expect(requests_per_s).toBeGreaterThan(0);
    // Rounded to 3 decimals each: 4 x requests/s within the rounding.
    expect(Math.abs(inputs_per_s - 4 * requests_per_s)).toBeLessThanOrEqual(0.005);
    expect(Math.abs(input_tokens_per_s - INPUT_TOKENS * inputs_per_s)).toBeLessThanOrEqual(0.005 * INPUT_TOKENS);
    expect(output_tokens_per_s).toBe(0);
    expect(group.dialects).toBeUndefined();
    expect(summary.thresholds.map((t: { passed: boolean }) => t.passed)).toEqual([true, true, true]);
    // requests.csv: each row's inputs, no output tokens or TTFT (empty cells).
    const rows = parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8')).records;
    expect(rows).toHaveLength(12);
    for (const row of rows) {
      expect(row).toMatchObject({
        inputs: '4',
        input_tokens: String(4 * INPUT_TOKENS),
        output_tokens: '',
        ttft_ms: '',
      });
      expect(Number(row['e2e_ms'])).toBeGreaterThanOrEqual(LATENCY_MS - 1);
    }
    const csv = readFileSync(join(out, 'summary.csv'), 'utf8');
    const metrics = csv
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',')[4]);
    expect(metrics).toEqual(expect.arrayContaining(['e2e_ms', 'input_tokens', 'inputs_per_s', 'input_tokens_per_s']));
    for (const absent of ['ttft_ms', 'itl_ms', 'tpot_ms', 'output_tokens', 'decode_tps'])
      expect(metrics).not.toContain(absent);
    expect(csv).toContain(`vectors/${MODEL}/-,vectors,${MODEL},,inputs_per_s,,${inputs_per_s},`);
    // The terminal table shows them; report.html too.
    expect(result.stdout).toMatch(/inputs\/s\s+in tok\/s/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('input tokens/s');
  });

  it('compares and merges two runs on inputs/s and input tokens/s', async () => {
    const { out: b } = await runCli('b', '1');
    const compared = await runCliInProcess([
      'compare',
      join(dir, 'a'),
      b,
      '--tolerance',
      'inputs_per_s=1000%',
      '--tolerance',
      'input_tokens_per_s=1000%',
      '--json',
    ]);
    expect(compared.code).toBe(0);
    expect(compared.stdout).toContain('inputs_per_s');
    expect(compared.stdout).toContain('input_tokens_per_s');
    const merged = join(dir, 'merged');
    const result = await runCliInProcess(['merge', join(dir, 'a'), b, '--out', merged]);
    expect(result.code).toBe(0);
    const group = JSON.parse(readFileSync(join(merged, 'summary.json'), 'utf8')).groups[0];
    expect(group.requests.ok).toBe(24);
    expect(group.metrics.ttft_ms).toBeUndefined();
    expect(Math.abs(group.throughput.inputs_per_s - 4 * group.throughput.requests_per_s)).toBeLessThanOrEqual(0.02);
  });

  it('is refused before the emulator starts: it serves only chat completions (exit 3)', async () => {
    const path = join(dir, 'p.yaml');
    writeFileSync(path, 'name: e\nscenarios:\n  - { name: vectors, api: embeddings, requests: 1 }\n');
    const result = await runCliInProcess(['run', path, '--out', join(dir, 'out'), '--quiet']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'scenario vectors has api: embeddings, but the embedded emulator serves only chat completions (POST /v1/chat/completions), like the service it emulates: POST /v1/embeddings answers 404 there',
    );
  });
});
