/**
 * Every feature that reads answers, per API (issue 25, part 2), over real sockets against each API's
 * purpose-built server (test/helpers/): retries (a 503 on each request's first attempt, from a front
 * before the server), thresholds on the API's own metric (pass, and fail with exit 99), an early stop
 * (`abort_on_fail`), `compare` of two runs of one profile and `merge` of two `--shard` runs, live
 * `/metrics` counters and the dashboard's final table, one `capacity` search, answer checks where the API
 * has tools (a schema that passes, one that fails), sessions carrying the server's real answer, other
 * tools' dialects (chat's and completions' streams only), and the profile error naming the field of a
 * feature the API refuses. One table of APIs, a row each, every test for each row: docs/apis.md
 * "Features by API" is this table. Chat is not a row: the rest of the suite tests each feature on chat.
 * The runs are short (6 requests, 4 tokens 2 ms apart after 5 ms, the tiny tokenizer: token counts are
 * the subject of each API's own run test); one run of each API is the thresholds test's passing run and
 * the compare test's baseline, and the early stops send 20 requests a second.
 * About 24 s on a loaded 2-core machine (load average 7): the four capacity searches (steps of about a
 * second) and the four early stops (checked once a second) are half of it; 16-22 CPU-s alone (load
 * average 6-8), vitest's start-up included.
 * @module-tag slow
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../../src/cli/context.js';
import { runCli } from '../../../src/cli/run-cli.js';
import type { CompareResult } from '../../../src/report/compare/compare-runs.js';
import type { LiveStateMessage } from '../../../src/report/live/live-feed.js';
import { MemoryStream, runCliInProcess } from '../../helpers/cli.js';
import { MODEL as COMPLETIONS_MODEL, startCompletionsServer } from '../../helpers/completions-server.js';
import type { TestServer } from '../../helpers/fault-servers.js';
import { startFirstAttemptFaultFront } from '../../helpers/first-attempt-fault-front.js';
import { MODEL as EMBEDDINGS_MODEL, startEmbeddingsServer } from '../../helpers/embeddings-server.js';
import {
  MODEL as MESSAGES_MODEL,
  startMessagesServer,
  TOOL_MODEL as MESSAGES_TOOL_MODEL,
} from '../../helpers/messages-server.js';
import { parsePromText, promSum } from '../../helpers/prometheus-text.js';
import {
  MODEL as RESPONSES_MODEL,
  startResponsesServer,
  TOOL_MODEL as RESPONSES_TOOL_MODEL,
} from '../../helpers/responses-server.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../../helpers/run-folder.js';
import { parseCsvRecords } from '../../../src/util/csv-records.js';
import { o200kTokenizer } from '../../../src/util/tokenizer.js';

const folder = useRunFolder('inferbench-api-features-');

const TIMING = { firstTextMs: 5, tokenMs: 2, tokens: 4 };
const REQUESTS = 6;

/** A feature the API refuses: a scenario line that asks for it, and the field the error must name. */
interface Refusal {
  readonly yaml: string;
  readonly field: string;
}

interface ApiRow {
  readonly api: string;
  readonly model: string;
  readonly start: () => Promise<TestServer>;
  /** A latency of the API's own to put a threshold on. */
  readonly metric: 'ttft_ms' | 'e2e_ms';
  /** Output tokens of each answer: 0 for an API that generates nothing. */
  readonly outputTokens: number;
  /**
   * When the API has tools (answer checks): the server's model that answers with a tool call, the call's
   * name, and one argument of it with its JSON type (a schema of another type fails the check).
   */
  readonly tool: {
    readonly model: string;
    readonly name: string;
    readonly argument: string;
    readonly type: string;
  } | null;
  readonly refused: readonly Refusal[];
  /**
   * Whether summary.json has other tools' dialects for the API: their definitions are of OpenAI's
   * chat and completions streams (docs/dialects.md, "Which APIs").
   */
  readonly dialects: boolean;
  /** The texts of the assistant turns in a request body, when the API carries sessions; null when it refuses them. */
  readonly assistantTexts: ((body: Record<string, unknown>) => string[]) | null;
}

/** A message's text: a string, or the text of its content blocks (Anthropic's, OpenAI's parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('');
}

/** The assistant messages' texts of a body's `messages` (chat's, Anthropic's) or `input` items (Responses'). */
function assistantMessages(body: Record<string, unknown>): string[] {
  const list = body.messages ?? body.input;
  const messages = Array.isArray(list) ? (list as { role?: unknown; content?: unknown }[]) : [];
  return messages.filter((message) => message.role === 'assistant').map((message) => textOf(message.content));
}

const APIS: readonly ApiRow[] = [
  {
    api: 'completions',
    model: COMPLETIONS_MODEL,
    start: () => startCompletionsServer(TIMING),
    metric: 'ttft_ms',
    outputTokens: TIMING.tokens,
    tool: null,
    refused: [
      { yaml: 'request: { response_format: { type: json_object } }', field: 'request.response_format' },
      { yaml: 'request: { tools: [{ type: function, function: { name: f } }] }', field: 'request.tools' },
      { yaml: 'session: { turns: 2 }', field: 'session' },
    ],
    assistantTexts: null,
    dialects: true,
  },
  {
    api: 'messages',
    model: MESSAGES_MODEL,
    start: () => startMessagesServer(TIMING),
    metric: 'ttft_ms',
    outputTokens: TIMING.tokens,
    tool: { model: MESSAGES_TOOL_MODEL, name: 'weather', argument: 'city', type: 'string' },
    refused: [
      { yaml: 'request: { response_format: { type: json_object } }', field: 'request.response_format' },
      { yaml: 'tiers: [flex]', field: 'tiers' },
    ],
    assistantTexts: assistantMessages,
    dialects: false,
  },
  {
    api: 'responses',
    model: RESPONSES_MODEL,
    start: () => startResponsesServer(TIMING),
    metric: 'ttft_ms',
    outputTokens: TIMING.tokens,
    // Its call's arguments: {"k1":1,"k2":2} (responses-server.ts toolArgumentDeltas).
    tool: { model: RESPONSES_TOOL_MODEL, name: 'get_weather', argument: 'k1', type: 'integer' },
    refused: [
      { yaml: 'request: { seed: 1 }', field: 'request.seed' },
      { yaml: 'request: { stop: [x] }', field: 'request.stop' },
    ],
    assistantTexts: assistantMessages,
    dialects: false,
  },
  {
    api: 'embeddings',
    model: EMBEDDINGS_MODEL,
    start: () => startEmbeddingsServer({ latencyMs: TIMING.firstTextMs }),
    metric: 'e2e_ms',
    outputTokens: 0,
    tool: null,
    refused: [
      { yaml: 'session: { turns: 2 }', field: 'session' },
      { yaml: 'request: { response_format: { type: json_object } }', field: 'request.response_format' },
      { yaml: 'request: { tools: [{ type: function, function: { name: f } }] }', field: 'request.tools' },
    ],
    assistantTexts: null,
    dialects: false,
  },
];

const servers = new Map<string, TestServer>();
beforeAll(async () => {
  for (const row of APIS) servers.set(row.api, await row.start());
  // The servers count prompt tokens with o200k, loaded at their first request (seconds, blocking this
  // process): loaded here, so that no test's timings include it.
  o200kTokenizer().count('warm');
}, 60_000);
afterAll(async () => {
  for (const server of servers.values()) await server.close();
});

function urlOf(row: ApiRow): string {
  const server = servers.get(row.api);
  if (server === undefined) throw new Error(`no server for ${row.api}`);
  return server.url;
}

/** A profile of one scenario speaking `row.api`; `scenario` adds scenario lines, `top` top-level ones. */
function profileOf(row: ApiRow, name: string, scenario = '', top = ''): string {
  const lines = scenario === '' ? '' : `${scenario.replace(/^/gm, '    ')}\n`;
  return folder.writeProfile(
    `${row.api}-${name}`,
    `name: ${row.api}-${name}
target: { tokenizer: ${TINY_TOKENIZER} }
scenarios:
  - name: s
    api: ${row.api}
    models: [${row.model}]
    load: { mode: concurrency, concurrency: 2 }
    requests: ${REQUESTS}
    prompt: { input_tokens: 16${row.outputTokens > 0 ? `, output_tokens: ${row.outputTokens}` : ''} }
${lines}${top}`,
  );
}

async function run(args: readonly string[], baseUrl: string) {
  return runCliInProcess([...args, '--base-url', baseUrl, '--quiet'], { cwd: folder.dir });
}

/**
 * The profile of several tests: the compare and merge test's (`seed: 3`: its shards split the same requests), with
 * thresholds on the API's metric that pass.
 */
function sharedProfile(row: ApiRow): string {
  return profileOf(row, 'shared', 'seed: 3', `thresholds: ["${row.metric}.p50 < 5000", "error_rate <= 0"]`);
}

/**
 * A run of sharedProfile, once per API, by whichever test needs it first: the thresholds test's passing run
 * and the compare test's baseline. It exits 0.
 */
const sharedRuns = new Map<string, Promise<string>>();
function sharedRun(row: ApiRow): Promise<string> {
  let started = sharedRuns.get(row.api);
  if (started === undefined) {
    const out = join(folder.dir, `${row.api}-run-a`);
    started = run(['run', sharedProfile(row), '--out', out], urlOf(row)).then((result) => {
      expect(result.code, result.stderr).toBe(0);
      return out;
    });
    sharedRuns.set(row.api, started);
  }
  return started;
}

function onlyGroup(dir: string) {
  const group = readSummary(dir).groups[0];
  if (group === undefined) throw new Error(`${dir}: no group`);
  return group;
}

describe.each(APIS)('api: $api', (row) => {
  it('retries a 503 on the first attempt of each request: ok after 2 attempts, the 503s counted', async () => {
    const front = await startFirstAttemptFaultFront(urlOf(row));
    try {
      const out = join(folder.dir, `${row.api}-retry`);
      const path = profileOf(row, 'retry', 'retry: { max_attempts: 2, on: [http_5xx], backoff: 5ms }');
      const result = await run(['run', path, '--out', out], front.url);
      expect(result.code, result.stderr).toBe(0);
      const group = onlyGroup(out);
      expect(group.requests.ok).toBe(REQUESTS);
      expect(group.requests.failed).toBe(0);
      expect(group.requests.attempts).toBe(2 * REQUESTS);
      expect(group.requests.retried).toEqual({ http_5xx: REQUESTS });
      expect(front.refused()).toBe(REQUESTS);
      const rows = readFileSync(join(out, 'requests.csv'), 'utf8').trim().split('\n');
      const header = (rows[0] as string).split(',');
      const attempts = header.indexOf('attempts');
      expect(rows.slice(1).map((line) => line.split(',')[attempts])).toEqual(Array(REQUESTS).fill('2'));
    } finally {
      await front.close();
    }
  });

  it(`evaluates thresholds on ${row.metric}: a pass exits 0, a failure exits 99`, async () => {
    // A pass: exit 0 (sharedRun checks it), both thresholds passed.
    const summary = readSummary(await sharedRun(row));
    expect(summary.thresholds.map((t) => [t.expression, t.passed])).toEqual([
      [`${row.metric}.p50 < 5000`, true],
      ['error_rate <= 0', true],
    ]);
    // The server's first text comes 5 ms after the request: no p50 is under 1 ms.
    const fail = profileOf(row, 'fail', '', `thresholds: ["${row.metric}.p50 < 1"]`);
    const failed = await run(['run', fail, '--out', join(folder.dir, `${row.api}-fail`)], urlOf(row));
    expect(failed.code, failed.stderr).toBe(99);
    const actual = readSummary(join(folder.dir, `${row.api}-fail`)).thresholds[0]?.actual as number;
    expect(actual).toBeGreaterThanOrEqual(TIMING.firstTextMs);
  });

  it('stops early on an abort_on_fail threshold', async () => {
    const path = folder.writeProfile(
      `${row.api}-abort`,
      // 20 requests a second: the threshold is checked once a second, and a closed loop of 2 sent ~150 by then.
      readFileSync(profileOf(row, 'abort-base'), 'utf8')
        .replace('load: { mode: concurrency, concurrency: 2 }', 'load: { mode: rate, rate: 20 }')
        .replace(`requests: ${REQUESTS}`, 'duration: 60s')
        .concat(`thresholds:\n  - { threshold: "${row.metric}.p50 < 1", abort_on_fail: true }\n`),
    );
    const out = join(folder.dir, `${row.api}-abort`);
    const started = performance.now();
    const result = await run(['run', path, '--out', out], urlOf(row));
    expect(result.code, result.stderr).toBe(99);
    expect(performance.now() - started).toBeLessThan(20_000);
    const summary = readSummary(out);
    expect(summary.complete).toBe(false);
    expect(summary.stopped).toMatchObject({ reason: 'abort_on_fail', threshold: `${row.metric}.p50 < 1` });
    expect(onlyGroup(out).requests.ok).toBeGreaterThan(0);
  });

  it('compares two runs of one profile without a regression, and merges two shards into the whole run', async () => {
    const path = sharedProfile(row);
    const a = await sharedRun(row);
    const dirs = ['b', '1', '2'].map((name) => join(folder.dir, `${row.api}-run-${name}`));
    const [b, shard1, shard2] = dirs as [string, string, string];
    expect((await run(['run', path, '--out', b], urlOf(row))).code).toBe(0);
    // Latencies of a few ms on a shared machine: the API's own p50 with a generous tolerance, every other
    // latency check off (a fresh clone's TPOT p50 went 1.65 -> 3.47 ms between two runs of one profile).
    const noisy = ['ttft_ms', 'itl_ms', 'tpot_ms', 'e2e_ms']
      .flatMap((metric) => [`${metric}.p50`, `${metric}.p99`])
      .filter((id) => id !== `${row.metric}.p50`);
    const compared = await runCliInProcess([
      'compare',
      a,
      b,
      '--json',
      '--tolerance',
      `${row.metric}.p50=1000%`,
      ...noisy.flatMap((id) => ['--tolerance', `${id}=off`]),
    ]);
    expect(compared.code, compared.stdout + compared.stderr).toBe(0);
    const comparison = JSON.parse(compared.stdout) as CompareResult;
    expect(comparison.regressions).toBe(0);
    expect(comparison.mismatches).toEqual([]);
    const p50 = comparison.comparisons.find((c) => c.metricId === `${row.metric}.p50`);
    expect(p50).toMatchObject({ group: `s/${row.model}/-`, verdict: expect.not.stringMatching(/regress/) });
    expect(p50?.baseline).toBeGreaterThanOrEqual(TIMING.firstTextMs);

    for (const [shard, dir] of [
      ['1/2', shard1],
      ['2/2', shard2],
    ] as const)
      expect((await run(['run', path, '--shard', shard, '--out', dir], urlOf(row))).code).toBe(0);
    const merged = join(folder.dir, `${row.api}-merged`);
    const result = await runCliInProcess(['merge', shard1, shard2, '--out', merged]);
    expect(result.code, result.stderr).toBe(0);
    const whole = onlyGroup(a);
    const group = onlyGroup(merged);
    expect(group.requests.ok).toBe(whole.requests.ok);
    expect(group.metrics[row.metric]?.count).toBe(whole.metrics[row.metric]?.count);
    expect(group.metrics.output_tokens?.mean).toBe(whole.metrics.output_tokens?.mean);
    expect(onlyGroup(shard1).requests.ok + onlyGroup(shard2).requests.ok).toBe(REQUESTS);
  });

  it('counts its requests on the live /metrics and the dashboard', async () => {
    const path = profileOf(row, 'live');
    const stderr = new MemoryStream();
    const ctx: CliContext = {
      stdout: new MemoryStream(),
      stderr,
      env: { PATH: process.env.PATH },
      cwd: folder.dir,
      interrupt: new AbortController().signal,
      exitCode: 0,
    };
    const out = join(folder.dir, `${row.api}-live`);
    const argv = ['run', path, '--out', out, '--metrics-port', '0', '--dashboard', '0'];
    const running = runCli([...argv, '--base-url', urlOf(row), '--quiet'], ctx);
    // Once the results are written, /metrics waits for its last scrape, and the dashboard is up until then.
    let metricsUrl: string | undefined;
    while (metricsUrl === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      metricsUrl = /keeping (http:\/\/\S+\/metrics) up/.exec(stderr.text)?.[1];
    }
    const dashboardUrl = /dashboard: (http:\/\/\S+\/)/.exec(stderr.text)?.[1] as string;
    const state = (await (await fetch(`${dashboardUrl}state`)).json()) as LiveStateMessage;
    const metrics = parsePromText(await (await fetch(metricsUrl)).text());
    expect(await running, stderr.text).toBe(0);
    expect(promSum(metrics, 'inferbench_run_ended')).toBe(1);
    const where = { group: `s/${row.model}/-` };
    expect(promSum(metrics, 'inferbench_requests_total', { ...where, outcome: 'ok' })).toBe(REQUESTS);
    expect(promSum(metrics, `inferbench_${row.metric.replace(/_ms$/, '')}_seconds_count`, where)).toBe(REQUESTS);
    expect(promSum(metrics, 'inferbench_output_tokens_total', where)).toBe(REQUESTS * row.outputTokens);
    expect(state.end?.status.state).toBe('ended');
    const table = state.end?.status.groups.find((group) => group.key === where.group);
    expect({ ok: table?.ok, failed: table?.failed }).toEqual({ ok: REQUESTS, failed: 0 });
  });

  // A latency under 2 ms, against a server that takes 5: every request exceeds it, so each step decides
  // (FAIL) within a few requests; the search then ends at its lowest load, with no capacity.
  it('runs a capacity search with the API, each step judged on its metric', async () => {
    const path = folder.writeProfile(
      `${row.api}-capacity`,
      `name: ${row.api}-capacity
target: { tokenizer: ${TINY_TOKENIZER} }
scenarios:
  - name: s
    api: ${row.api}
    models: [${row.model}]
    load: { mode: rate, rate: 30, arrival: constant }
    duration: 3s
    prompt: { input_tokens: 16${row.outputTokens > 0 ? `, output_tokens: ${row.outputTokens}` : ''} }
capacity:
  slo: { ${row.metric}.p90: 2ms, error_rate: 10% }
  start: 30
  max_steps: 2
  max_step_duration: 3s
  step_warmup: 200ms
  block: 200ms
`,
    );
    const out = join(folder.dir, `${row.api}-capacity-run`);
    const result = await run(['capacity', path, '--out', out], urlOf(row));
    expect(result.code, result.stderr).toBe(0);
    const steps = parseCsvRecords(readFileSync(join(out, 'capacity.csv'), 'utf8')).records;
    expect(steps.length).toBeGreaterThanOrEqual(1);
    for (const step of steps) {
      // Every step is judged FAIL on the API's metric; a step the loaded harness spoiled is INCONCLUSIVE
      // and says what it had found (a loaded machine spoiled every step of one fresh-clone run): its test's
      // FAIL, or, when the client's event loop stalled (368 ms at p99 in one fresh clone) and the requests in
      // flight piled up behind it, the saturation signal.
      if (step['outcome'] === 'inconclusive')
        expect(step['reason']).toMatch(new RegExp(`was: (?:FAIL: .*${row.metric}\\.p90|saturated: )`));
      else expect(step['outcome']).toBe('fail');
      expect(Number(step['requests'])).toBeGreaterThan(0);
      expect(step['failed']).toBe('0');
      expect(Number(step[`${row.metric.replace(/_ms$/, '')}_p50_ms`])).toBeGreaterThanOrEqual(TIMING.firstTextMs);
    }
  });

  // The server's tool call has `tool.argument` of `tool.type`: a schema that says so passes every answer,
  // one that asks for another type fails every answer.
  const tool = row.tool;
  const otherType = tool?.type === 'string' ? 'integer' : 'string';
  it.runIf(tool !== null).each([
    { type: tool?.type ?? 'none', passed: REQUESTS, failed: 0 },
    { type: otherType, passed: 0, failed: REQUESTS },
  ])('checks tool-call arguments against the tools the profile declares ($type)', async (want) => {
    if (tool === null) return;
    const path = profileOf(
      { ...row, model: tool.model },
      `checks-${want.type}`,
      `request:
  tools:
    - type: function
      function:
        name: ${tool.name}
        parameters: { type: object, properties: { ${tool.argument}: { type: ${want.type} } }, required: [${tool.argument}] }
    - type: function
      function:
        name: other
        parameters: { type: object, properties: { n: { type: integer } }, required: [n] }`,
    );
    const out = join(folder.dir, `${row.api}-checks-${want.type}`);
    const result = await run(['run', path, '--out', out], urlOf(row));
    expect(result.code, result.stderr).toBe(0);
    const checks = onlyGroup(out).checks;
    expect(checks?.tool_arguments, JSON.stringify(checks)).toMatchObject({ passed: want.passed, failed: want.failed });
  });

  it.runIf(row.assistantTexts !== null)(
    'sends the real answer of the server in the next turn of a session',
    async () => {
      const server = servers.get(row.api) as TestServer;
      const before = server.requests.length;
      const path = profileOf(row, 'session', 'session: { turns: 2, user_tokens: 8 }');
      const out = join(folder.dir, `${row.api}-session`);
      const result = await run(['run', path, '--out', out], urlOf(row));
      expect(result.code, result.stderr).toBe(0);
      // `requests` counts sessions: two requests each.
      expect(onlyGroup(out).requests.ok).toBe(2 * REQUESTS);
      const bodies = server.requests
        .slice(before)
        .filter((request) => request.method === 'POST')
        .map((request) => JSON.parse(request.body.toString('utf8')) as Record<string, unknown>);
      const answers = bodies.map((body) => (row.assistantTexts as (b: Record<string, unknown>) => string[])(body));
      // First turns with no answer in them, second turns with the first turn's answer as the server sent it.
      expect(answers.filter((texts) => texts.length === 0)).toHaveLength(REQUESTS);
      expect(answers.filter((texts) => texts.length === 1).map((texts) => texts[0])).toEqual(
        Array(REQUESTS).fill(' tok'.repeat(TIMING.tokens)),
      );
    },
  );

  it(`${row.dialects ? 'reads its runs in' : 'has no'} other tools' dialects`, async () => {
    // A run of its own, not the shared one: read from the shared run, vLLM's TTFT came within 1 ms of
    // inferbench's in a fresh clone's npm test (18.4 against 19.1 ms: the empty event and the first text
    // read together), which the run of its own never did.
    const out = join(folder.dir, `${row.api}-dialects`);
    expect((await run(['run', profileOf(row, 'dialects'), '--out', out], urlOf(row))).code).toBe(0);
    const group = onlyGroup(out);
    if (!row.dialects) {
      expect(group.dialects).toBeUndefined();
      return;
    }
    // vLLM's completions client stamps TTFT at the first event with choices, text or not: here the
    // server's empty first event, sent at once, 5 ms before the first text inferbench's TTFT waits for.
    const vllm = group.dialects?.vllm?.metrics.ttft_ms?.p50 as number;
    const own = group.metrics.ttft_ms?.p50 as number;
    expect(own).toBeGreaterThanOrEqual(TIMING.firstTextMs);
    expect(vllm).toBeLessThan(own - TIMING.firstTextMs / 2);
    // AIPerf's TTFT is the first text, as inferbench's.
    expect(group.dialects?.aiperf?.metrics.ttft_ms?.p50).toBeGreaterThanOrEqual(TIMING.firstTextMs);
  });

  it('validate --json shows the output length its first request asks for', async () => {
    const result = await runCliInProcess(['validate', profileOf(row, 'validate'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const first = (JSON.parse(result.stdout) as { first_requests: Record<string, unknown>[] }).first_requests;
    // Sent as max_tokens (completions, messages) or max_output_tokens (responses); embeddings generate nothing.
    expect(first).toEqual([
      { group: `s/${row.model}/-`, input_tokens: 16, max_completion_tokens: row.outputTokens || null },
    ]);
  });

  it.each(row.refused)('refuses $field, naming the field', async (refusal) => {
    const path = profileOf(row, `refused-${refusal.field.replace(/\W/g, '-')}`, refusal.yaml);
    const result = await runCliInProcess(['validate', path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`scenarios[0].${refusal.field}`);
    expect(result.stderr).toContain(`api: ${row.api}:`);
  });
});
