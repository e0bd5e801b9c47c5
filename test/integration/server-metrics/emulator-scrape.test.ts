/**
 * The scraper and the vLLM preset against the emulator's own GET /metrics (vLLM's names), over real
 * sockets: `auto` recognises vLLM, and over the window of a known set of requests the token rates' increases
 * equal the sums of the usage the emulator answered with, the server TTFT histogram counts every answer,
 * the prefix-cache counters give a ratio, and the gauges are back to idle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverWindow } from '../../../src/aggregate/server-metrics/server-window.js';
import { startServerMetrics, type EndpointLog } from '../../../src/client/server-metrics/scraper.js';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import type { ChatCompletionResponse } from '../../../src/protocol/chat.js';
import { systemClock } from '../../../src/util/clock.js';
import { endpointSpec } from '../../helpers/engine-metrics-server.js';
import { KEY, chat } from '../emulator/support.js';
import { until } from '../../helpers/until.js';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await createEmulator({ apiKeys: [KEY] });
});
afterAll(async () => {
  await emulator.close();
});

describe('scraping the emulator', () => {
  it('recognises vLLM; token increases equal the answered usage; TTFT counts every answer', async () => {
    const session = startServerMetrics(
      [endpointSpec(`${emulator.url}/metrics`, { metrics: [], intervalMs: 250, timeoutMs: 200 })],
      {
        clock: systemClock,
        env: {},
      },
    );
    const log = session.logs[0] as EndpointLog;
    await until(() => log.scrapes.length >= 1, 'a first scrape');
    const fromUs = log.scrapes.at(-1)!.startUs;
    const document = Array.from({ length: 300 }, (_, i) => `fact ${i}.`).join(' ');
    let prompt = 0;
    let completion = 0;
    const n = 6;
    for (let i = 0; i < n; i++) {
      const res = await chat(emulator.url, {
        model: 'small-fast-8b',
        messages: [{ role: 'user', content: `${document} Question ${i}?` }],
        max_completion_tokens: 8,
      });
      expect(res.status).toBe(200);
      const usage = (res.json as ChatCompletionResponse).usage;
      prompt += usage.prompt_tokens;
      completion += usage.completion_tokens;
    }
    const count = log.scrapes.length;
    await until(() => log.scrapes.length >= count + 2, 'two scrapes after the requests');
    await session.stop();
    const window = serverWindow(log, fromUs, log.scrapes.at(-1)!.startUs);
    expect(log.engine).toBe('vllm');
    const c = window.concepts;
    expect(c.prompt_tokens_per_s).toMatchObject({ kind: 'counter', delta: prompt });
    expect(c.generation_tokens_per_s).toMatchObject({ kind: 'counter', delta: completion });
    expect(c.server_ttft).toMatchObject({ kind: 'histogram', count: n });
    expect(c.running).toMatchObject({ kind: 'gauge', last: 0 });
    expect(c.waiting).toMatchObject({ kind: 'gauge', last: 0 });
    expect(c.kv_cache_usage?.kind).toBe('gauge');
    // The ratio is the counters' increases over the window (whether the emulator's cache hit is its business).
    const ratio = c.prefix_cache_hit_ratio;
    expect(ratio?.kind).toBe('ratio');
    if (ratio?.kind === 'ratio') {
      expect(ratio.queries).toBeGreaterThan(0);
      expect(ratio.value).toBe(ratio.hits / ratio.queries);
    }
    // The emulator runs in this test's thread: a scrape may time out while it works, and is only counted.
    expect(log.failures.count).toBe(log.failures.byKind.timeout);
  });
});
