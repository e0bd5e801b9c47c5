/**
 * What a run costs, and the --max-cost budget, end to end on real sockets: a purpose-built server on
 * 127.0.0.1 with a known usage per answer (12 prompt, 3 completion tokens) and, when asked, a public
 * catalog with prices, so every cost is hand-computable and exact; the emulator (in this process), whose
 * catalog has prices; the profile's pricing over the catalog's; a --max-cost below the estimate refused before
 * anything is sent (exit 4); a run whose spend reaches --max-cost stopped early with its files written.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCsvRecords } from '../../src/util/csv-records.js';
import { runCliInProcess } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { chunk, playScript, sendJson, sseData, startTestServer, type TestServer } from '../helpers/fault-servers.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-cost-');
const emulators = useInProcessEmulators();

const MODELS = { object: 'list', data: [{ id: 'test-model', object: 'model', created: 0, owned_by: 't' }] };
const CATALOG = {
  object: 'list',
  data: [{ id: 'test-model', pricing: { prompt: '0.0000002', completion: '0.0000004' } }],
};
const USAGE = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };

/** A server answering every chat request with USAGE after `delayMs`, and its catalog when `catalog`. */
function pricedServer(options: { catalog: boolean; delayMs?: number }): Promise<TestServer> {
  return startTestServer((req, res) => {
    if (req.method === 'GET' && req.url.startsWith('/public/v1/models'))
      return options.catalog ? sendJson(res, 200, CATALOG) : sendJson(res, 404, { message: 'not found' });
    if (req.method === 'GET') return sendJson(res, 200, MODELS);
    playScript(res, [
      { write: sseData(chunk({ role: 'assistant', content: '' })) },
      { afterMs: options.delayMs ?? 0, write: sseData(chunk({ content: 'Hi there' })) },
      { write: sseData(chunk({}, 'stop', { usage: USAGE })) },
      { end: true },
    ]);
  });
}

function chatRequests(server: TestServer): number {
  return server.requests.filter((r) => r.method === 'POST').length;
}

/** The purpose-built servers' runs count with the tiny tokenizer: prices apply to the server's usage. */
const TARGET = `target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }\n`;

function profile(name: string, load: string, extra = ''): string {
  return folder.writeProfile(
    name,
    `name: ${name}
${TARGET}scenarios:
  - name: priced
    models: [test-model]
    ${load}
    request: { max_completion_tokens: 16 }
    prompt: { input_tokens: 16 }
${extra}`,
  );
}

const PROFILE_PRICING = 'pricing: { test-model: { prompt: "0.000001", completion: "0.000002" } }\n';

describe('the cost of a run', () => {
  let server: TestServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('prices the known tokens with the catalog exactly, per group and per run', { timeout: 30_000 }, async () => {
    server = await pricedServer({ catalog: true });
    const path = profile('catalog', 'load: { mode: concurrency, concurrency: 2 }\n    requests: 10');
    const out = join(folder.dir, 'catalog');
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    expect(result.code, result.stderr).toBe(0);
    const summary = readSummary(out);
    const group = summary.groups[0]!;
    // 10 x (12 x 0.0000002 + 3 x 0.0000004) = 10 x 0.0000036
    expect(group.cost).toEqual({
      usd: 0.000036,
      source: 'catalog',
      pricing: { prompt: '0.0000002', completion: '0.0000004' },
      input_tokens: 120,
      output_tokens: 30,
      per_million_output_tokens: 1.2,
      per_thousand_requests: 0.0036,
    });
    expect(summary.cost).toEqual({ usd: 0.000036, source: 'catalog', unpriced_models: [] });
    expect(result.stdout).toContain('cost: $0.000036');
    // A local target: no estimate printed unless --max-cost asks for the budget.
    expect(result.stderr).not.toContain('estimated spend');
  });

  it("uses the profile's pricing over the catalog's, without asking the catalog", { timeout: 30_000 }, async () => {
    server = await pricedServer({ catalog: true });
    const path = profile('override', 'load: { mode: concurrency, concurrency: 2 }\n    requests: 10', PROFILE_PRICING);
    const out = join(folder.dir, 'override');
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    expect(result.code, result.stderr).toBe(0);
    const summary = readSummary(out);
    // 10 x (12 x 0.000001 + 3 x 0.000002) = 10 x 0.000018
    expect(summary.groups[0]!.cost).toMatchObject({ usd: 0.00018, source: 'profile', per_million_output_tokens: 6 });
    expect(summary.cost).toEqual({ usd: 0.00018, source: 'profile', unpriced_models: [] });
    expect(server.requests.some((r) => r.url.startsWith('/public/'))).toBe(false);
  });

  it('is absent when neither the profile nor the target prices the model', { timeout: 30_000 }, async () => {
    server = await pricedServer({ catalog: false });
    const path = profile('unpriced', 'load: { mode: concurrency, concurrency: 2 }\n    requests: 4');
    const out = join(folder.dir, 'unpriced');
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--out', out], { cwd: folder.dir });
    expect(result.code, result.stderr).toBe(0);
    const summary = readSummary(out);
    expect(summary.cost).toBeUndefined();
    expect(summary.groups[0]!.cost).toBeUndefined();
  });

  it('prices a run against the emulator from its catalog: tokens x prices, exactly', {
    timeout: 60_000,
  }, async () => {
    const path = folder.writeProfile(
      'emulator',
      `name: emulator
scenarios:
  - name: chat
    models: [large-70b]
    load: { mode: concurrency, concurrency: 4 }
    requests: 12
    request: { max_completion_tokens: 8 }
    prompt: { input_tokens: 32 }
`,
    );
    const out = join(folder.dir, 'emulator');
    const result = await runCliInProcess(['run', path, '--out', out], {
      cwd: folder.dir,
      target: await emulators.start(),
    });
    expect(result.code, result.stderr).toBe(0);
    const cost = readSummary(out).groups[0]!.cost!;
    expect(cost.source).toBe('catalog');
    expect(cost.pricing).toEqual({ prompt: '0.00000085', completion: '0.0000012' });
    // In integers of 1e-8 USD: 85 per input token, 120 per output token (a quotient of two exact
    // doubles is the double nearest the exact decimal, as the harness's figure is).
    expect(cost.usd).toBe((cost.input_tokens * 85 + cost.output_tokens * 120) / 1e8);
    expect(cost.input_tokens).toBeGreaterThan(12 * 32 - 1);
    // requests.csv prices each ok request the same way: its cells add up to the group's cost exactly.
    const { records } = parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8'));
    const measured = records.filter((row) => row.warmup === '0' && row.error_class === '');
    expect(measured).toHaveLength(12);
    for (const row of measured)
      expect(row.cost_usd).toBe(String((Number(row.input_tokens) * 85 + Number(row.output_tokens) * 120) / 1e8));
    const cents = measured.reduce((sum, row) => sum + Math.round(Number(row.cost_usd) * 1e8), 0);
    expect(cents / 1e8).toBe(cost.usd);
  });
});

describe('--max-cost', () => {
  let server: TestServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('refuses a run whose estimate exceeds it: exit 4, nothing sent, no run folder', { timeout: 30_000 }, async () => {
    server = await pricedServer({ catalog: true });
    const path = profile('refused', 'load: { mode: concurrency, concurrency: 2 }\n    requests: 10', PROFILE_PRICING);
    const out = join(folder.dir, 'refused');
    // Estimate: 10 x (16 x 0.000001 + 16 x 0.000002) = 0.00048 USD.
    const result = await runCliInProcess(
      ['run', path, '--base-url', server.url, '--out', out, '--max-cost', '0.0001'],
      {
        cwd: folder.dir,
      },
    );
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain('estimated spend $0.00048 for ~10 requests');
    expect(result.stderr).toContain(
      'refused: the estimated spend $0.00048 exceeds --max-cost $0.0001; nothing was sent',
    );
    expect(server.requests).toHaveLength(0);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses on catalog prices after asking only the public catalog', { timeout: 30_000 }, async () => {
    server = await pricedServer({ catalog: true });
    const path = profile('refused-catalog', 'load: { mode: rate, rate: 5 }\n    duration: 60s');
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--max-cost', '0.0001'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(4);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /public/v1/models']);
  });

  it('cannot be enforced without a price: exit 2 before anything is sent', { timeout: 30_000 }, async () => {
    server = await pricedServer({ catalog: false });
    const path = profile('no-price', 'load: { mode: concurrency, concurrency: 1 }\n    requests: 2');
    const result = await runCliInProcess(['run', path, '--base-url', server.url, '--max-cost', '5'], {
      cwd: folder.dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-cost cannot be enforced: no price for test-model');
    expect(chatRequests(server)).toBe(0);
  });

  it('stops a run whose spend reaches it: exit 4, stopped max_cost, files written', { timeout: 60_000 }, async () => {
    // The profile expects 1 + 1 tokens per request; the server answers 12 + 3: the estimate passes, the spend does not.
    server = await pricedServer({ catalog: false, delayMs: 150 });
    const path = folder.writeProfile(
      'stopped',
      `name: stopped
${TARGET}scenarios:
  - name: priced
    models: [test-model]
    load: { mode: concurrency, concurrency: 1 }
    requests: 60
    request: { max_completion_tokens: 1 }
    prompt: { input_tokens: 1 }
${PROFILE_PRICING}`,
    );
    const out = join(folder.dir, 'stopped');
    // Estimate: 60 x (1 x 0.000001 + 1 x 0.000002) = 0.00018, under the budget of 0.0002; the spend
    // (0.000018 a request) reaches it at the 12th request, seconds before the 60th (150 ms each).
    const result = await runCliInProcess(
      ['run', path, '--base-url', server.url, '--out', out, '--max-cost', '0.0002'],
      {
        cwd: folder.dir,
      },
    );
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/stopped early at [\d.]+ s: the spend \$0\.\d+ reached --max-cost \$0\.0002/);
    const summary = readSummary(out);
    expect(summary.complete).toBe(false);
    expect(summary.stopped).toMatchObject({ reason: 'max_cost', max_cost_usd: 0.0002 });
    const stopped = summary.stopped as { spent_usd: number };
    expect(stopped.spent_usd).toBeGreaterThanOrEqual(0.0002);
    const group = summary.groups[0]!;
    expect(group.requests.ok).toBeGreaterThanOrEqual(12);
    expect(group.requests.ok).toBeLessThan(60);
    expect(chatRequests(server)).toBeLessThan(60);
    expect(summary.cost?.usd).toBe(group.cost?.usd);
    for (const file of ['requests.csv', 'summary.csv', 'timeseries.csv'])
      expect(existsSync(join(out, file))).toBe(true);
  });

  it('stops a run in worker threads too: the spend is counted in the main thread', {
    timeout: 60_000,
    tags: ['slow'],
  }, async () => {
    server = await pricedServer({ catalog: false, delayMs: 150 });
    const path = folder.writeProfile(
      'stopped-workers',
      `name: stopped-workers
${TARGET}scenarios:
  - name: priced
    models: [test-model]
    load: { mode: concurrency, concurrency: 2 }
    requests: 120
    request: { max_completion_tokens: 1 }
    prompt: { input_tokens: 1 }
${PROFILE_PRICING}`,
    );
    const out = join(folder.dir, 'stopped-workers');
    // Estimate 120 x 0.000003 = 0.00036 passes 0.0004; the spend (0.000018 a request) reaches it at the 23rd.
    const result = await runCliInProcess(
      ['run', path, '--base-url', server.url, '--out', out, '--max-cost', '0.0004', '--workers', '2'],
      { cwd: folder.dir },
    );
    expect(result.code, result.stderr).toBe(4);
    const summary = readSummary(out);
    expect(summary.workers).toBe(2);
    expect(summary.stopped).toMatchObject({ reason: 'max_cost', max_cost_usd: 0.0004 });
    expect(summary.groups[0]!.requests.ok).toBeLessThan(120);
    expect(chatRequests(server)).toBeLessThan(120);
  });
});
