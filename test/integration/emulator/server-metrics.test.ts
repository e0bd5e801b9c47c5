/**
 * GET /metrics of the emulator (issue 23, item 7), over real sockets: after a known set of requests the
 * counters equal the sums of the `usage` the emulator answered with, the histograms count every answer
 * and sum its time_info, and, while requests are parked behind a dedicated endpoint cut to 2 slots, the
 * gauges show exactly who runs, who waits in which tier and the KV the running prompts hold. The text is
 * read with parse-prometheus-text-format, the parser the server-metrics scraper uses, so what it sees
 * here (families, labels, buckets) is what a run sees.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCatalog } from '../../../src/emulator/catalog/builtin-catalog.js';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import type { ChatCompletionResponse, TimeInfo, Usage } from '../../../src/protocol/chat.js';
import { KEY, chat, parseSse, request } from './support.js';

/** What the parser returns (prom2json's shape), the part this test reads. */
interface Sample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value?: string;
  readonly buckets?: Readonly<Record<string, string>>;
  readonly count?: string;
  readonly sum?: string;
}
interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly metrics: readonly Sample[];
}
const parsePrometheusText = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => Family[];

const ENDPOINT = 'ep-large-70b-dedicated';
const SHARED = 'small-fast-8b';
/** A prompt of some 4,000 tokens: at the endpoint's 1,000 tokens/s its prefill holds a slot for seconds. */
const LONG_PROMPT = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(' ');
/** A document shared by the prefix-cached requests (several 128-token blocks). */
const DOCUMENT = Array.from({ length: 600 }, (_, i) => `fact ${i}.`).join(' ');

let emulator: Emulator;
/** Every answer the emulator sent with usage, per model. */
const answers = new Map<string, { usage: Usage; timeInfo: TimeInfo }[]>();

function note(model: string, usage: Usage, timeInfo: TimeInfo): void {
  const list = answers.get(model) ?? [];
  list.push({ usage, timeInfo });
  answers.set(model, list);
}

async function complete(body: Record<string, unknown>): Promise<ChatCompletionResponse> {
  const res = await chat(emulator.url, body);
  expect(res.status).toBe(200);
  const answer = res.json as ChatCompletionResponse;
  note(String(body.model), answer.usage, answer.time_info as TimeInfo);
  return answer;
}

async function completeStream(body: Record<string, unknown>): Promise<void> {
  const res = await chat(emulator.url, { ...body, stream: true, stream_options: { include_usage: true } });
  expect(res.status).toBe(200);
  const last = parseSse(res.text).at(-1) as { usage: Usage; time_info: TimeInfo };
  note(String(body.model), last.usage, last.time_info);
}

/** The parsed families, and the text they came from. */
async function scrape(headers: Record<string, string> = {}): Promise<Family[] & { text: string }> {
  const res = await request(`${emulator.url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return Object.assign(parsePrometheusText(res.text), { text: res.text });
}

function family(families: readonly Family[], name: string): Family {
  const found = families.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no family ${name}`);
  return found;
}

/** The value of a family's series with these labels (model_name and any others). */
function value(families: readonly Family[], name: string, labels: Record<string, string>): number {
  const sample = family(families, name).metrics.find((m) =>
    Object.entries(labels).every(([key, v]) => m.labels?.[key] === v),
  );
  if (sample?.value === undefined) throw new Error(`no ${name} ${JSON.stringify(labels)}`);
  return Number(sample.value);
}

/** A histogram series read from the text itself (see the parser's limit below), buckets in text order. */
interface HistogramSeries {
  readonly buckets: Record<string, number>;
  readonly sum: number;
  readonly count: number;
}

/** One sample line: name, labels (values unescaped) and value. Test-side, written apart from the emulator's writer. */
function sampleLines(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g))
        labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

function histogram(text: string, name: string, model: string): HistogramSeries {
  const series = { buckets: {} as Record<string, number>, sum: Number.NaN, count: Number.NaN };
  for (const line of sampleLines(text)) {
    if (line.labels.model_name !== model) continue;
    if (line.name === `${name}_bucket`) series.buckets[line.labels.le!] = line.value;
    else if (line.name === `${name}_sum`) series.sum = line.value;
    else if (line.name === `${name}_count`) series.count = line.value;
  }
  if (Object.keys(series.buckets).length === 0) throw new Error(`no histogram ${name} for ${model}`);
  return series;
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

beforeAll(async () => {
  // The dedicated endpoint cut to 2 slots, a slow prefill and no jitter: the parked-requests test's
  // state stays put for seconds.
  const catalog = builtinCatalog('local');
  const endpoints = catalog.endpoints.map((endpoint) =>
    endpoint.endpointId === ENDPOINT
      ? {
          ...endpoint,
          capacity: { ...endpoint.capacity, slots: 2, prefillTokensPerS: 1000, ttftFloorMs: 5, jitter: 0 },
        }
      : endpoint,
  );
  emulator = await createEmulator({ apiKeys: [KEY], catalog: { ...catalog, endpoints } });
});

afterAll(async () => {
  await emulator.close();
});

describe('GET /metrics', () => {
  it('answers without a key, and a key does no harm; before any request every series is there at 0', async () => {
    const bare = await fetch(`${emulator.url}/metrics`);
    expect(bare.status).toBe(200);
    const text = await bare.text();
    const withKey = await scrape({ authorization: `Bearer ${KEY}` });
    expect(withKey.text).toBe(text);
    // Each family has its HELP and TYPE line, and counters end in _total.
    for (const f of withKey) {
      expect(text).toContain(`# HELP ${f.name} `);
      expect(text).toContain(`# TYPE ${f.name} ${f.type.toLowerCase()}`);
      if (f.type === 'COUNTER') expect(f.name).toMatch(/_total$/);
    }
    expect(withKey.map((f) => `${f.name} ${f.type}`)).toEqual([
      'vllm:num_requests_running GAUGE',
      'vllm:num_requests_waiting GAUGE',
      'vllm:num_requests_waiting_by_tier GAUGE',
      'vllm:kv_cache_usage_perc GAUGE',
      'vllm:num_preemptions_total COUNTER',
      'vllm:prefix_cache_queries_total COUNTER',
      'vllm:prefix_cache_hits_total COUNTER',
      'vllm:prompt_tokens_total COUNTER',
      'vllm:generation_tokens_total COUNTER',
      'vllm:request_success_total COUNTER',
      'vllm:time_to_first_token_seconds HISTOGRAM',
      'vllm:request_queue_time_seconds HISTOGRAM',
      'vllm:e2e_request_latency_seconds HISTOGRAM',
    ]);
    // One series per served model and endpoint, labelled as vLLM labels its own.
    const models = family(withKey, 'vllm:num_requests_running').metrics.map((m) => m.labels);
    expect(models).toContainEqual({ model_name: SHARED, engine: '0' });
    expect(models).toContainEqual({ model_name: ENDPOINT, engine: '0' });
    expect(value(withKey, 'vllm:prompt_tokens_total', { model_name: SHARED })).toBe(0);
    const ttft = histogram(withKey.text, 'vllm:time_to_first_token_seconds', SHARED);
    // vLLM's bounds, as Python writes them, then +Inf.
    expect(Object.keys(ttft.buckets)).toEqual([
      '0.001',
      '0.005',
      '0.01',
      '0.02',
      '0.04',
      '0.06',
      '0.08',
      '0.1',
      '0.25',
      '0.5',
      '0.75',
      '1.0',
      '2.5',
      '5.0',
      '7.5',
      '10.0',
      '20.0',
      '40.0',
      '80.0',
      '160.0',
      '640.0',
      '2560.0',
      '+Inf',
    ]);
    expect(Object.keys(histogram(withKey.text, 'vllm:e2e_request_latency_seconds', SHARED).buckets)).toEqual([
      '0.3',
      '0.5',
      '0.8',
      '1.0',
      '1.5',
      '2.0',
      '2.5',
      '5.0',
      '10.0',
      '15.0',
      '20.0',
      '30.0',
      '40.0',
      '50.0',
      '60.0',
      '120.0',
      '240.0',
      '480.0',
      '960.0',
      '1920.0',
      '7680.0',
      '+Inf',
    ]);
  });

  it('counters equal the sums of the usage answered, histograms count every answer and sum its time_info', async () => {
    // Streamed and whole answers, answers cut by max_completion_tokens (length) and not (stop), and a
    // prefix-cached conversation: the same document under one prompt_cache_key, asked three things.
    await complete({
      model: SHARED,
      messages: [{ role: 'user', content: 'Say something.' }],
      max_completion_tokens: 3,
    });
    await completeStream({
      model: SHARED,
      messages: [{ role: 'user', content: 'Tell more.' }],
      max_completion_tokens: 7,
    });
    await complete({ model: SHARED, messages: [{ role: 'user', content: 'Briefly.' }], seed: 3 });
    for (const question of ['Who?', 'What?', 'Where?']) {
      const body = {
        model: SHARED,
        messages: [{ role: 'user', content: `${DOCUMENT}\n${question}` }],
        prompt_cache_key: 'doc-1',
        max_completion_tokens: 5,
      };
      if (question === 'What?') await completeStream(body);
      else await complete(body);
    }
    const sent = answers.get(SHARED) ?? [];
    expect(sent).toHaveLength(6);
    const cached = sum(sent.map((a) => a.usage.prompt_tokens_details?.cached_tokens ?? 0));
    expect(cached).toBeGreaterThan(500);

    const families = await scrape();
    const model = { model_name: SHARED };
    expect(value(families, 'vllm:prompt_tokens_total', model)).toBe(sum(sent.map((a) => a.usage.prompt_tokens)));
    expect(value(families, 'vllm:generation_tokens_total', model)).toBe(
      sum(sent.map((a) => a.usage.completion_tokens)),
    );
    expect(value(families, 'vllm:prefix_cache_queries_total', model)).toBe(sum(sent.map((a) => a.usage.prompt_tokens)));
    expect(value(families, 'vllm:prefix_cache_hits_total', model)).toBe(cached);
    expect(value(families, 'vllm:num_preemptions_total', model)).toBe(0);
    expect(value(families, 'vllm:request_success_total', { ...model, finished_reason: 'length' })).toBe(5);
    expect(value(families, 'vllm:request_success_total', { ...model, finished_reason: 'stop' })).toBe(1);
    expect(value(families, 'vllm:request_success_total', { ...model, finished_reason: 'tool_calls' })).toBe(0);
    // Nothing runs or waits once every answer is in; another model saw none of it.
    expect(value(families, 'vllm:num_requests_running', model)).toBe(0);
    expect(value(families, 'vllm:kv_cache_usage_perc', model)).toBe(0);
    expect(value(families, 'vllm:prompt_tokens_total', { model_name: 'large-70b' })).toBe(0);

    const timeSums = {
      'vllm:time_to_first_token_seconds': sum(sent.map((a) => a.timeInfo.queue_time + a.timeInfo.prompt_time)),
      'vllm:request_queue_time_seconds': sum(sent.map((a) => a.timeInfo.queue_time)),
      'vllm:e2e_request_latency_seconds': sum(sent.map((a) => a.timeInfo.total_time)),
    };
    for (const [name, expected] of Object.entries(timeSums)) {
      const h = histogram(families.text, name, SHARED);
      expect(h.count, name).toBe(6);
      expect(h.buckets['+Inf'], name).toBe(6);
      // time_info rounds each moment to a whole µs: at most 1 µs per answer apart.
      expect(Math.abs(h.sum - expected), name).toBeLessThanOrEqual(6e-6 + 1e-12);
      const cumulative = Object.values(h.buckets);
      expect(cumulative, name).toEqual([...cumulative].sort((a, b) => a - b));
    }
    // Every TTFT of this idle emulator is under 250 ms (the model's floor is 40 ms): in the 0.25 bucket.
    expect(histogram(families.text, 'vllm:time_to_first_token_seconds', SHARED).buckets['0.25']).toBe(6);
  });

  it('shows the requests running, those waiting by tier, and the KV their prompts hold, while they are parked', async () => {
    // How many tokens the long prompt is (the count does not depend on the model).
    const probe = await complete({
      model: SHARED,
      messages: [{ role: 'user', content: LONG_PROMPT }],
      max_completion_tokens: 1,
    });
    const longTokens = probe.usage.prompt_tokens;
    expect(longTokens).toBeGreaterThan(3000);
    const before = await scrape();
    const answeredBefore = value(before, 'vllm:request_success_total', {
      model_name: ENDPOINT,
      finished_reason: 'length',
    });
    expect(answeredBefore).toBe(0);

    // Two long prompts take both slots for seconds of prefill; a flex and a priority request wait.
    const parked = new AbortController();
    const long = { model: ENDPOINT, messages: [{ role: 'user', content: LONG_PROMPT }], max_completion_tokens: 2 };
    const holders = [0, 1].map(() =>
      fetch(`${emulator.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...long, seed: 11 }),
        signal: parked.signal,
      }).catch(() => undefined),
    );
    const short = (tier: string) => ({
      model: ENDPOINT,
      messages: [{ role: 'user', content: `Short ${tier}.` }],
      max_completion_tokens: 4,
      service_tier: tier,
    });
    let state = before;
    const waiting = () => value(state, 'vllm:num_requests_waiting', { model_name: ENDPOINT });
    const running = () => value(state, 'vllm:num_requests_running', { model_name: ENDPOINT });
    const deadline = Date.now() + 20_000;
    while (running() < 2 && Date.now() < deadline) state = await scrape();
    const queued = [complete(short('flex')), complete(short('priority'))];
    while (waiting() < 2 && Date.now() < deadline) state = await scrape();

    const endpoint = { model_name: ENDPOINT };
    expect(running()).toBe(2);
    expect(waiting()).toBe(2);
    const byTier = (tier: string) =>
      value(state, 'vllm:num_requests_waiting_by_tier', { ...endpoint, service_tier: tier });
    expect([byTier('priority'), byTier('default'), byTier('flex')]).toEqual([1, 0, 1]);
    // Both running prompts are in prefill (no token out yet): KV holds their prompts, over 2 slots x 131,072.
    expect(value(state, 'vllm:kv_cache_usage_perc', endpoint)).toBe((2 * longTokens) / (2 * 131_072));
    // Nothing of theirs is counted before their prompt is processed.
    expect(value(state, 'vllm:prompt_tokens_total', endpoint)).toBe(0);

    // The long ones go away (their prompts never processed, so never counted): the waiting ones run.
    parked.abort();
    await Promise.all(holders);
    await Promise.all(queued);
    const after = await scrape();
    const sent = answers.get(ENDPOINT) ?? [];
    expect(sent).toHaveLength(2);
    expect(value(after, 'vllm:num_requests_running', endpoint)).toBe(0);
    expect(value(after, 'vllm:num_requests_waiting', endpoint)).toBe(0);
    expect(value(after, 'vllm:kv_cache_usage_perc', endpoint)).toBe(0);
    expect(value(after, 'vllm:prompt_tokens_total', endpoint)).toBe(sum(sent.map((a) => a.usage.prompt_tokens)));
    expect(value(after, 'vllm:generation_tokens_total', endpoint)).toBe(
      sum(sent.map((a) => a.usage.completion_tokens)),
    );
    const queueTime = histogram(after.text, 'vllm:request_queue_time_seconds', ENDPOINT);
    expect(queueTime.count).toBe(2);
    expect(queueTime.buckets['+Inf']).toBe(2);
    expect(Math.abs(queueTime.sum - sum(sent.map((a) => a.timeInfo.queue_time)))).toBeLessThanOrEqual(2e-6);
  });

  it('parse-prometheus-text-format 1.1.1 merges labelled histograms: labels, _sum and _count lost (its issue #13)', async () => {
    // A limit of the parser, kept here so that whoever reads server histograms with it sees it fail, and
    // sees this test change when a release fixes it: every series of a family with labels besides `le`
    // (vLLM always has model_name) is folded into one sample without labels, each bucket holding the
    // value of the last series that had it, and no sum or count. Gauges and counters keep their labels.
    const families = await scrape();
    const ttft = family(families, 'vllm:time_to_first_token_seconds');
    expect(ttft.type).toBe('HISTOGRAM');
    expect(ttft.metrics).toHaveLength(1);
    expect(ttft.metrics[0]!.labels).toBeUndefined();
    expect(ttft.metrics[0]!.count).toBeUndefined();
    expect(ttft.metrics[0]!.sum).toBeUndefined();
    const models = family(families, 'vllm:num_requests_running').metrics;
    expect(models.length).toBeGreaterThan(1);
    expect(models.every((m) => m.labels?.model_name !== undefined && m.labels.engine === '0')).toBe(true);
  });
});
