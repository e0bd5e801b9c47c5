/**
 * A capacity search's scrapes as one run's (capacity-result.ts searchServerMetrics): each endpoint's
 * counts summed over the steps that scraped, its failures and skipped ticks each said once with the sums
 * (a step's own count would repeat per step with different numbers), every other warning once, and nothing when no step
 * scraped.
 */
import { describe, expect, it } from 'vitest';
import type { ServerEndpointSummary } from '../../../../src/metrics/server-summary.js';
import { searchServerMetrics } from '../../../../src/runner/capacity/capacity-result.js';
import type { StepResult } from '../../../../src/runner/capacity/run-step.js';

const LIVE = 'http://127.0.0.1:8000/metrics';
const DEAD = 'http://127.0.0.1:1/metrics';

function endpoint(
  url: string,
  ok: number,
  failed: number,
  atS: number,
  slowestMs: number | null = null,
): ServerEndpointSummary {
  return {
    url,
    preset: 'auto',
    engine: ok > 0 ? 'vllm' : null,
    interval_ms: 200,
    attempts: ok + failed,
    scrapes_ok: ok,
    skipped: 1,
    failures: failed,
    failures_by_kind: failed > 0 ? { connect: failed } : {},
    last_error: failed > 0 ? { kind: 'connect', message: `refused at ${atS}`, at_s: atS } : null,
    slowest_ms: slowestMs,
  };
}

function step(endpoints: ServerEndpointSummary[], warnings: string[]): StepResult {
  return { serverMetrics: { endpoints, warnings } } as unknown as StepResult;
}

describe('searchServerMetrics', () => {
  it('sums each endpoint over the steps and says its failures once, with the sums', () => {
    const found = searchServerMetrics([
      step(
        [endpoint(LIVE, 10, 0, 0, 310), endpoint(DEAD, 0, 10, 1.8)],
        [
          `server metrics ${DEAD}: 10 of 10 scrapes failed (10 connect); last: connect: refused at 1.8; the client's numbers are unaffected`,
          `server metrics ${LIVE}: 1 scrape ticks skipped (10 scrapes made): the scrape before was still under way (interval 200 ms; answers took up to 310 ms); set a longer interval`,
          `server metrics ${DEAD}: 1 scrape ticks skipped (10 scrapes made): the scrape before was still under way (interval 200 ms); set a longer interval`,
          'server metrics x: no scrape was made (the run ended first)',
        ],
      ),
      step([], []),
      step(
        [endpoint(LIVE, 7, 1, 0.4, 420), endpoint(DEAD, 0, 8, 1.4)],
        [
          `server metrics ${DEAD}: 8 of 8 scrapes failed (8 connect); last: connect: refused at 1.4; the client's numbers are unaffected`,
          `server metrics ${LIVE}: 1 scrape ticks skipped (8 scrapes made): the scrape before was still under way (interval 200 ms; answers took up to 420 ms); set a longer interval`,
          `server metrics ${DEAD}: 1 scrape ticks skipped (8 scrapes made): the scrape before was still under way (interval 200 ms); set a longer interval`,
          'server metrics x: no scrape was made (the run ended first)',
        ],
      ),
    ]);
    expect(found?.endpoints).toEqual([
      { ...endpoint(LIVE, 17, 1, 0.4, 420), engine: 'vllm', skipped: 2 },
      { ...endpoint(DEAD, 0, 18, 1.4), skipped: 2 },
    ]);
    expect(found?.warnings).toEqual([
      `server metrics ${LIVE}: 1 of 18 scrapes failed over the search's steps (1 connect); last: connect: refused at 0.4; the client's numbers are unaffected`,
      `server metrics ${DEAD}: 18 of 18 scrapes failed over the search's steps (18 connect); last: connect: refused at 1.4; the client's numbers are unaffected`,
      // Skipped ticks likewise: once per endpoint, summed, with the slowest answer of any step.
      `server metrics ${LIVE}: 2 scrape ticks skipped over the search's steps (18 scrapes made): the scrape before was still under way (interval 200 ms; answers took up to 420 ms); set a longer interval`,
      `server metrics ${DEAD}: 2 scrape ticks skipped over the search's steps (18 scrapes made): the scrape before was still under way (interval 200 ms); set a longer interval`,
      'server metrics x: no scrape was made (the run ended first)',
    ]);
  });

  it('is null when no step scraped', () => {
    expect(searchServerMetrics([{ serverMetrics: null } as unknown as StepResult])).toBeNull();
    expect(searchServerMetrics([])).toBeNull();
  });
});
