/**
 * The wait for Prometheus' last scrape after a run (cli/scrape-waiter.ts): only an answer whose values
 * were read after the end counts, also when an older answer finishes after it; a limit and an abort end it.
 */
import { describe, expect, it } from 'vitest';
import { ScrapeWaiter } from '../../src/cli/scrape-waiter.js';

const never = new AbortController().signal;

describe('ScrapeWaiter', () => {
  it('is not ended by an answer made before the end that finishes after a final one was made', async () => {
    const waiter = new ScrapeWaiter();
    waiter.made(); // a scrape that read the values while the run went
    waiter.arm();
    waiter.made(); // a second scraper reads the final values
    let settled: boolean | null = null;
    const wait = waiter.wait(5_000, never).then((scraped) => {
      settled = scraped;
    });
    waiter.scraped(); // the older answer reaches its scraper first
    await Promise.resolve();
    expect(settled).toBeNull();
    waiter.scraped(); // now the final one
    await wait;
    expect(settled).toBe(true);
  });

  it('ends at once when a final answer was already sent, and not for answers made before the end', async () => {
    const before = new ScrapeWaiter();
    before.made();
    before.scraped();
    before.arm();
    const started = performance.now();
    expect(await before.wait(50, never)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(40);
    const after = new ScrapeWaiter();
    after.arm();
    after.made();
    after.scraped();
    expect(await after.wait(60_000, never)).toBe(true);
  });

  it('ends with false on an abort and on cancel()', async () => {
    const waiter = new ScrapeWaiter();
    waiter.arm();
    const interrupt = new AbortController();
    const aborted = waiter.wait(60_000, interrupt.signal);
    interrupt.abort();
    expect(await aborted).toBe(false);
    const cancelled = waiter.wait(60_000, never);
    waiter.cancel();
    expect(await cancelled).toBe(false);
  });
});
