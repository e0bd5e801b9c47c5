/**
 * Costing, exactly: decimal USD in integer atto-dollars (util/usd.ts), prices from the profile over the
 * catalog (cost-prices.ts), a group's and a run's cost (cost-of.ts), the spend meter and the --max-cost
 * early stop (cost-meter.ts, early-stop.ts), the pre-run estimate (cost-estimate.ts) and what counts as
 * a local target (cli/cost-guard.ts).
 */
import { describe, expect, it } from 'vitest';
import { estimateCapacitySpend, estimateRunSpend } from '../../../src/aggregate/cost/cost-estimate.js';
import { pricedCollector } from '../../../src/aggregate/cost/cost-collector.js';
import { CostMeter } from '../../../src/aggregate/cost/cost-meter.js';
import { createRunCollector } from '../../../src/aggregate/run-collector.js';
import { createRequestRecord } from '../../../src/client/request-record.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import { groupCost, runCost } from '../../../src/aggregate/cost/cost-of.js';
import { priceBook } from '../../../src/aggregate/cost/cost-prices.js';
import { createEarlyStop } from '../../../src/aggregate/early-stop.js';
import { isLocalTarget } from '../../../src/cli/cost-guard.js';
import type { GroupSummary } from '../../../src/metrics/run-summary.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { canonicalUsd, parseUsd, usdNumber, usdString } from '../../../src/util/usd.js';

describe('util/usd: exact decimal USD', () => {
  it('parses decimals, numbers and exponents into atto-dollars and prints them back', () => {
    expect(parseUsd('0.0000002')).toBe(200_000_000_000n);
    expect(parseUsd(2e-7)).toBe(200_000_000_000n);
    expect(parseUsd('12.5')).toBe(12_500_000_000_000_000_000n);
    expect(parseUsd('-1')).toBeNull();
    expect(parseUsd('abc')).toBeNull();
    expect(canonicalUsd('0.00000040')).toBe('0.0000004');
    expect(usdString(400_000_000_000_000n)).toBe('0.0004');
  });

  it('adds what floating point cannot: a million tokens at 0.0000001', () => {
    let float = 0;
    for (let i = 0; i < 1_000_000; i++) float += 0.0000001;
    expect(float).not.toBe(0.1);
    expect(usdNumber(parseUsd('0.0000001')! * 1_000_000n)).toBe(0.1);
  });
});

const BOOK = priceBook(
  { mine: { kind: 'token', prompt: '0.000001', completion: '0.000002' } },
  new Map([
    ['mine', { prompt: '0.5', completion: '0.5' }],
    ['theirs', { prompt: '0.0000002', completion: '0.0000004' }],
  ]),
);

describe('prices and costs', () => {
  it("takes the profile's price over the catalog's", () => {
    expect(BOOK.get('mine')?.source).toBe('profile');
    expect(BOOK.get('theirs')?.source).toBe('catalog');
  });

  it('prices a group and a run exactly, per-hour deployments over the wall time', () => {
    const tally = { inputTokens: 120, outputTokens: 30, requests: 10 };
    const cost = groupCost(BOOK.get('theirs')!, tally, 1000);
    expect(cost).toMatchObject({ usd: 0.000036, per_million_output_tokens: 1.2, per_thousand_requests: 0.0036 });
    const hourly = priceBook({ dedicated: { kind: 'hour', perHour: '3.6' } }, null).get('dedicated')!;
    expect(groupCost(hourly, tally, 60_000).usd).toBe(0.06);
    const group = (model: string, c: GroupSummary['cost']) => ({ model, cost: c }) as GroupSummary;
    const groups = [
      group('theirs', cost),
      group('theirs', cost),
      group('dedicated', groupCost(hourly, tally, 1)),
      group('x', undefined),
    ];
    // 2 x 0.000036 + 3.6 USD/h x 10 s = 0.010072
    expect(runCost(groups, 10_000)).toEqual({ usd: 0.010072, source: 'mixed', unpriced_models: ['x'] });
  });
});

describe('the spend meter and the --max-cost early stop', () => {
  const profile = resolveProfileText('scenarios:\n  - name: s\n    models: [theirs]\n    duration: 60s\n', 'p.yaml');

  /** An ok request of 12 prompt and 3 answer tokens, ended in the run's collector. */
  function completeOne(collector: ReturnType<typeof pricedCollector>): void {
    const record = createRequestRecord(0, 0, 0);
    record.endUs = 1000;
    const values = createRecordedValues();
    values.input_tokens = 12;
    values.output_tokens = 3;
    collector.completed(record, values);
  }

  it('stops with max_cost once the spend reaches the budget, not before', () => {
    const meter = new CostMeter(BOOK);
    const options = { groups: profile.groups, slo: {}, runStartUs: 0 };
    // The meter reads the run's collector: the priced one watches it from its creation.
    const collector = pricedCollector(createRunCollector(options), meter, options);
    const stop = createEarlyStop(profile, 0, meter.budget(0.000036))!;
    for (let i = 0; i < 9; i++) completeOne(collector);
    expect(stop.check(() => undefined, 1_000_000)).toBeNull();
    completeOne(collector);
    expect(stop.check(() => undefined, 2_500_000)).toEqual({
      reason: 'max_cost',
      at_s: 2.5,
      max_cost_usd: 0.000036,
      spent_usd: 0.000036,
    });
  });
});

describe('the spend estimate', () => {
  it('open loop: rate x duration (warmup included) x expected tokens', () => {
    const profile = resolveProfileText(
      'scenarios:\n  - name: s\n    models: [theirs]\n    load: { mode: rate, rate: 2 }\n    duration: 10s\n    warmup: 5s\n    request: { max_completion_tokens: 10 }\n    prompt: { input_tokens: 100 }\n',
      'p.yaml',
    );
    const estimate = estimateRunSpend(profile, BOOK);
    expect(estimate.requests).toBe(30);
    // 30 x (100 x 0.0000002 + 10 x 0.0000004) = 30 x 0.000024
    expect(estimate.usd).toBe(0.00072);
  });

  it('closed loop: streams x duration / an assumed e2e, said in the notes; unknown models named', () => {
    const profile = resolveProfileText(
      'scenarios:\n  - name: s\n    models: [theirs, nobody]\n    load: { mode: concurrency, concurrency: 4 }\n    duration: 10s\n    request: { max_completion_tokens: 25 }\n',
      'p.yaml',
    );
    const estimate = estimateRunSpend(profile, BOOK);
    // e2e 0.5 s + 25 / 50 s = 1 s: 40 requests per group
    expect(estimate.requests).toBe(80);
    expect(estimate.notes.join()).toContain('1.0 s assumed per request');
    expect(estimate.unpriced).toEqual(['nobody']);
  });

  it('a capacity search: bounded by every step at the highest load it can reach, for the whole cap', () => {
    const capacity = (text: string) =>
      estimateCapacitySpend(
        resolveProfileText(
          `scenarios:\n  - name: s\n    models: [theirs]\n    load: { mode: rate, rate: 1 }\n    duration: 10s\n    request: { max_completion_tokens: 10 }\n    prompt: { input_tokens: 100 }\ncapacity: ${text}\n`,
          'p.yaml',
        ),
        BOOK,
      );
    // start 200, 4 steps of 10 s: doubling to 200 x 2.01^3 = 1624 req/s, every step up to 4 times.
    const stated = capacity('{ slo: { ttft_ms.p90: 1s }, start: 200, max_steps: 4, max_step_duration: 10s }');
    expect(stated.requests).toBe(Math.round(200 * 2.01 ** 3 * 16 * 10));
    expect(stated.notes).toContain('s: 4 steps, each up to 4 times, of 10 s at up to 1624 req/s');
    // A p99 cannot decide at 5 req/s in a 10 s step (5 s tested: the first block, a 2.5 s warmup and the
    // last block untested): the search starts at 117 req/s, as the runner's does.
    const raised = capacity('{ slo: { ttft_ms.p99: 1s }, start: 5, max_steps: 4, max_step_duration: 10s }');
    expect(raised.requests).toBe(Math.round(117 * 2.01 ** 3 * 16 * 10));
    // The default cap for a start of 10 req/s: a p99 at 5 req/s (582 requests) after 6 s untested: 124 s.
    const auto = capacity('{ slo: { ttft_ms.p99: 1s }, start: 10, max_steps: 2 }');
    expect(auto.requests).toBe(Math.round(10 * 2.01 * 8 * 124));
    // No start: the calibration probe (one stream for 4 s, 0.7 s assumed per request) and a start assumed.
    const calibrated = capacity('{ slo: { ttft_ms.p90: 1s }, max_steps: 2, max_step_duration: 10s }');
    expect(calibrated.notes.join()).toContain('the calibration measures the start; 1.43 req/s assumed');
    expect(calibrated.notes.join()).toContain('and a 4 s calibration');
    // 53 p90 requests in the 5 s a 10 s step tests: 10.6 req/s, doubled once; and 4 s / 0.7 s.
    expect(calibrated.requests).toBe(Math.round(10.6 * 2.01 * 8 * 10 + 4 / 0.7));
  });
});

describe('local targets', () => {
  it('are loopback and localhost only', () => {
    expect(isLocalTarget('http://127.0.0.1:8080')).toBe(true);
    expect(isLocalTarget('http://localhost:1/x')).toBe(true);
    expect(isLocalTarget('http://[::1]:9')).toBe(true);
    expect(isLocalTarget('https://api.example.com')).toBe(false);
    expect(isLocalTarget('http://10.0.0.1')).toBe(false);
  });
});
