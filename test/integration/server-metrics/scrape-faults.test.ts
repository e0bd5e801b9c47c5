/**
 * A metrics endpoint that misbehaves never stops the scraping nor throws: it hangs (each scrape ends at its
 * timeout, counted as `timeout`, and later scrapes succeed once it answers), answers HTML (`not_prometheus`),
 * 500 (`http_status`) or a malformed body (`parse`), streams 50 MB (`too_large`, and the body is not read
 * past the limit: the server could write only part of it), disappears mid-run (`connect`, then it recovers
 * when the endpoint returns), answers slower than the interval (ticks skipped, never two scrapes at once,
 * and a warning that says so with the count and the interval). The bearer key from api_key_env reaches the endpoint and appears nowhere in
 * what the scraper records.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startServerMetrics, type EndpointLog } from '../../../src/client/server-metrics/scraper.js';
import { DEFAULT_SCRAPE_LIMITS } from '../../../src/client/server-metrics/scrape-endpoint.js';
import { serverWarnings } from '../../../src/aggregate/server-metrics/server-summary.js';
import type { ServerMetricsSpec } from '../../../src/profile/resolved-profile.js';
import { systemClock } from '../../../src/util/clock.js';
import {
  endpointSpec,
  startEngineMetricsServer,
  type EngineMetricsServer,
} from '../../helpers/engine-metrics-server.js';
import { until } from '../../helpers/until.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((f) => f()));
});

async function scraping(
  overrides: Partial<ServerMetricsSpec> = {},
  env: Record<string, string> = {},
): Promise<{ server: EngineMetricsServer; log: EndpointLog; stop: () => Promise<unknown> }> {
  const server = await startEngineMetricsServer('vllm');
  const session = startServerMetrics([endpointSpec(server.url, overrides)], { clock: systemClock, env });
  const stop = async () => {
    await session.stop();
    await server.close();
  };
  cleanups.push(stop);
  return { server, log: session.logs[0] as EndpointLog, stop };
}

describe('a misbehaving metrics endpoint', () => {
  it('hangs: each scrape ends at its timeout (counted), the timer goes on, and scrapes succeed once it answers', async () => {
    const { server, log } = await scraping({ intervalMs: 300, timeoutMs: 200 });
    server.mode = 'hang';
    await until(() => log.failures.byKind.timeout >= 2, 'two timeouts');
    const last = log.failures.last;
    expect(last?.kind).toBe('timeout');
    const tookMs = ((last?.endUs ?? 0) - (last?.startUs ?? 0)) / 1000;
    // Never blocked past its timeout (a hang would be forever; the slack is the loaded machine's).
    expect(tookMs).toBeGreaterThanOrEqual(199);
    expect(tookMs).toBeLessThan(200 + 400);
    expect(log.failures.count).toBe(log.failures.byKind.timeout);
    server.mode = 'none';
    const okBefore = log.scrapes.length;
    await until(() => log.scrapes.length > okBefore, 'a scrape after the hang');
    expect(log.engine).toBe('vllm');
  });

  it('answers HTML (by content type, or as text/plain): not_prometheus', async () => {
    const { server, log } = await scraping();
    server.mode = 'html';
    await until(() => log.failures.byKind.not_prometheus >= 1, 'an HTML answer');
    expect(log.failures.last?.message).toMatch(/content-type text\/html/);
    server.mode = 'html-as-text';
    const before = log.failures.byKind.not_prometheus;
    await until(() => log.failures.byKind.not_prometheus > before, 'HTML as text/plain');
    expect(log.failures.last?.message).toMatch(/not Prometheus text/);
    // auto recognised nothing from failed scrapes: it waits for one that answers.
    expect(log.engine).toBeNull();
    expect(log.scrapes).toHaveLength(0);
  });

  it('answers 500: http_status; a malformed body: parse', async () => {
    const { server, log } = await scraping();
    server.mode = 'http_500';
    await until(() => log.failures.byKind.http_status >= 1, 'a 500');
    expect(log.failures.last?.message).toBe('HTTP 500');
    server.mode = 'malformed';
    await until(() => log.failures.byKind.parse >= 1, 'a malformed body');
    expect(log.failures.last?.message).toMatch(/^cannot parse: |sample lines could not be read/);
  });

  it('streams 50 MB: too_large, and reading stops at the limit', async () => {
    const { server, log } = await scraping({ intervalMs: 2000, timeoutMs: 1900 });
    server.mode = 'huge';
    await until(() => log.failures.byKind.too_large >= 1, 'a too-large answer');
    const limit = DEFAULT_SCRAPE_LIMITS.maxBodyBytes;
    expect(log.failures.last?.message).toMatch(/body larger than 8388608 bytes \(read \d+, stopped there\)/);
    const read = Number(/read (\d+)/.exec(log.failures.last?.message ?? '')?.[1]);
    // Read just past the limit (one chunk more at most), never the 50 MB.
    expect(read).toBeGreaterThan(limit);
    expect(read).toBeLessThan(limit + 1024 * 1024);
    // The server could not write the whole body: the client stopped reading and closed the connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.hugeBytesWritten()).toBeLessThan(40 * 1024 * 1024);
  });

  it('disappears mid-run: connect errors counted; scrapes recover when it returns', async () => {
    const { server, log } = await scraping();
    await until(() => log.scrapes.length >= 2, 'two scrapes');
    await server.down();
    await until(() => log.failures.byKind.connect >= 2, 'two connect errors');
    expect(log.failures.last?.kind).toBe('connect');
    await server.up();
    const okBefore = log.scrapes.length;
    await until(() => log.scrapes.length > okBefore, 'a scrape after it came back');
    // Every GET started is a success, a failure, or the one under way.
    expect(log.attempts - log.scrapes.length - log.failures.count).toBeLessThanOrEqual(1);
  });

  it('answers slower than the interval: ticks skipped, never two scrapes at once, and a warning with the count and interval', async () => {
    const { server, log, stop } = await scraping({ intervalMs: 100, timeoutMs: 5_000 });
    // Each answer 450 ms after its GET: ticks at +100, +200, +300 and +400 ms find it still going.
    server.delayMs = 450;
    await until(() => log.scrapes.length >= 2, 'two slow scrapes');
    const slowScrapes = log.scrapes.length;
    const skippedThen = log.skipped;
    await stop();
    expect(log.failures.count).toBe(0);
    const took = log.scrapes.map((s) => (s.endUs - s.startUs) / 1000);
    expect(Math.min(...took)).toBeGreaterThanOrEqual(449);
    // One GET at a time: each started after the one before it ended.
    for (let i = 1; i < log.scrapes.length; i++)
      expect(log.scrapes[i]?.startUs).toBeGreaterThanOrEqual(log.scrapes[i - 1]?.endUs ?? Number.POSITIVE_INFINITY);
    // At least 3 of the 4 ticks inside each of those scrapes were skipped (1 of slack for a loaded machine).
    expect(skippedThen).toBeGreaterThanOrEqual(3 * slowScrapes);
    const warning = serverWarnings([log]).find((w) => w.includes('skipped'));
    expect(warning).toBe(
      `server metrics ${server.url}: ${log.skipped} scrape ticks skipped (${log.attempts} scrapes made): the scrape before was still under way (interval 100 ms; answers took up to ${Math.round(Math.max(...took))} ms); set a longer interval`,
    );
  });

  it('sends the bearer key from api_key_env and never records it', async () => {
    const key = 'sk-metrics-secret-4242';
    const { server, log, stop } = await scraping({ apiKeyEnv: 'METRICS_KEY' }, { METRICS_KEY: key });
    await until(() => log.scrapes.length >= 1, 'a scrape');
    server.mode = 'http_500';
    await until(() => log.failures.count >= 1, 'a failure');
    await server.down();
    await until(() => log.failures.byKind.connect >= 1, 'a connect error');
    await stop();
    expect(server.authorizations[0]).toBe(`Bearer ${key}`);
    expect(JSON.stringify(log)).not.toContain(key);
    expect(JSON.stringify(log)).toContain('METRICS_KEY');
  });
});
