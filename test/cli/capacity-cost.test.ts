/**
 * `inferbench capacity --max-cost` on a purpose-built server on 127.0.0.1 (known usage per answer: 12
 * prompt and 3 completion tokens) with the profile's prices: a search whose estimate (max_steps steps of
 * step_duration at capacity.start) exceeds the budget is refused before anything is sent (exit 4); one whose
 * spend reaches it is stopped (exit 4) with its steps, summary.json `stopped` and its cost written.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { chunk, playScript, sendJson, sseData, startTestServer, type TestServer } from '../helpers/fault-servers.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-capacity-cost-');

const MODELS = { object: 'list', data: [{ id: 'test-model', object: 'model', created: 0, owned_by: 't' }] };
const USAGE = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };

function server(): Promise<TestServer> {
  return startTestServer((req, res) => {
    if (req.method === 'GET' && req.url.startsWith('/public/')) return sendJson(res, 404, { message: 'no catalog' });
    if (req.method === 'GET') return sendJson(res, 200, MODELS);
    playScript(res, [
      { write: sseData(chunk({ role: 'assistant', content: '' })) },
      { afterMs: 5, write: sseData(chunk({ content: 'Hi there' })) },
      { write: sseData(chunk({}, 'stop', { usage: USAGE })) },
      { end: true },
    ]);
  });
}

/** Rate 10 from the start, 3 steps of 10 s: estimate 300 x (1 x 0.000001 + 1 x 0.000002) = 0.0009 USD. */
const PROFILE = `name: capacity-cost
scenarios:
  - name: priced
    models: [test-model]
    load: { mode: rate, rate: 10, arrival: constant }
    duration: 60s
    request: { max_completion_tokens: 1 }
    prompt: { input_tokens: 1 }
capacity: { slo: { ttft_ms.p99: 2000ms }, start: 10, max_steps: 3, step_duration: 10s }
pricing: { test-model: { prompt: "0.000001", completion: "0.000002" } }
`;

describe('inferbench capacity --max-cost', () => {
  let target: TestServer | null = null;
  afterEach(async () => {
    await target?.close();
    target = null;
  });

  it('refuses a search whose estimate exceeds it: exit 4, nothing sent', { timeout: 30_000 }, async () => {
    target = await server();
    const path = folder.writeProfile('refused', PROFILE);
    const result = await runCliInProcess(['capacity', path, '--base-url', target.url, '--max-cost', '0.0005'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain('refused: the estimated spend $0.0009 exceeds --max-cost $0.0005');
    expect(target.requests).toHaveLength(0);
  });

  it('stops a search whose spend reaches it: exit 4, steps and cost written', { timeout: 60_000 }, async () => {
    target = await server();
    const path = folder.writeProfile('stopped', PROFILE);
    const out = join(folder.dir, 'stopped');
    // 0.000018 a request: the budget of 0.001 is reached at the 56th request, within the second step.
    const result = await runCliInProcess(
      ['capacity', path, '--base-url', target.url, '--out', out, '--max-cost', '0.001'],
      { cwd: folder.dir },
    );
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/stopped at [\d.]+ s: the spend \$0\.\d+ reached --max-cost \$0\.001/);
    const summary = readSummary(out);
    expect(summary.complete).toBe(false);
    expect(summary.stopped).toMatchObject({ reason: 'max_cost', max_cost_usd: 0.001 });
    expect(summary.cost?.usd).toBeGreaterThanOrEqual(0.001);
    expect(summary.cost?.source).toBe('profile');
    const chats = target.requests.filter((r) => r.method === 'POST').length;
    expect(chats).toBeLessThan(300);
    // Every request priced: the search's cost is its ok requests at 0.000018 each.
    const steps = summary.capacity?.groups[0]?.steps ?? [];
    expect(steps.length).toBeGreaterThan(0);
    expect(steps[0]?.cost_usd).toBeGreaterThan(0);
    expect(existsSync(join(out, 'capacity-steps.json'))).toBe(true);
  });
});
