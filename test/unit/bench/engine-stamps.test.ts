/**
 * The pure parts of `npm run bench engine`: requests.csv rows joined with the engine's log by request id
 * (warmup and failed rows left out, an id the engine saw twice or never left unmatched), the errors as
 * harness duration minus engine duration, their statistics, and the brute-force sweep's verdicts and answer.
 */
import { describe, expect, it } from 'vitest';
import {
  type EngineStamps,
  errorStats,
  type HarnessRequest,
  harnessRequests,
  joinStamps,
  nextSweepRate,
  sweepAnswer,
  sweepStep,
} from '../../../bench/engine-stamps.js';
import { parseCsvRecords } from '../../../src/util/csv-records.js';

const CSV = `id,group,scenario,warmup,status,error_class,ttft_ms,e2e_ms,request_id
0,0,c1,1,200,,20.5,50,req-w
1,0,c1,0,200,,12.25,40.5,req-a
2,0,c4,0,200,,110,170,req-b
3,0,c4,0,503,http_5xx,,3,req-c
4,0,c4,0,200,,30,60,req-d
5,0,c4,0,200,,31,61,req-e
`;

/** An engine log entry: arrived at `arrived`, a sequence at `started`, tokens at `tokens`, ended at `ended`. */
function log(
  requestId: string | null,
  arrived: number,
  started: number,
  tokens: number[],
  ended: number,
): EngineStamps {
  return { requestId, arrivedMs: arrived, startedMs: started, tokenTimesMs: tokens, endedMs: ended };
}

describe('harnessRequests', () => {
  it('reads id, scenario, warmup, success and the ms columns of requests.csv', () => {
    const rows = harnessRequests(parseCsvRecords(CSV).records);
    expect(rows[0]).toEqual({ requestId: 'req-w', scenario: 'c1', warmup: true, ok: true, ttftMs: 20.5, e2eMs: 50 });
    expect(rows[1]).toEqual({
      requestId: 'req-a',
      scenario: 'c1',
      warmup: false,
      ok: true,
      ttftMs: 12.25,
      e2eMs: 40.5,
    });
    expect(rows[3]).toMatchObject({ requestId: 'req-c', ok: false });
    expect(Number.isNaN(rows[3]?.ttftMs)).toBe(true);
  });
});

describe('joinStamps', () => {
  const requests = harnessRequests(parseCsvRecords(CSV).records);
  const logs = [
    // Out of order, on another origin than the harness: only differences on one side count.
    log('req-b', 5000, 5080, [5100, 5110, 5160], 5165),
    log('req-a', 1000, 1000.5, [1010, 1020], 1038),
    log('req-w', 900, 900, [910], 940),
    log(null, 1, 1, [2], 3),
    log('req-d', 7000, 7000, [7025], 7055),
    // The engine saw req-e twice: which one the harness's row is cannot be told, so neither is used.
    log('req-e', 8000, 8000, [8020], 8050),
    log('req-e', 9000, 9000, [9020], 9050),
  ];

  it('joins measured successful rows by request id; error = harness duration - engine duration', () => {
    const result = joinStamps(requests, logs);
    expect(result.failed).toBe(1);
    expect(result.unmatched).toBe(1);
    expect(result.joined.map((j) => j.requestId)).toEqual(['req-a', 'req-b', 'req-d']);
    const [a, b, d] = result.joined;
    expect(a).toEqual({
      requestId: 'req-a',
      scenario: 'c1',
      harnessTtftMs: 12.25,
      engineTtftMs: 10,
      ttftErrorMs: 2.25,
      harnessE2eMs: 40.5,
      engineE2eMs: 38,
      e2eErrorMs: 2.5,
      engineQueueMs: 0.5,
    });
    // The engine's TTFT holds its queue wait (80 ms) and prefill: first token - arrival.
    expect(b).toMatchObject({ engineTtftMs: 100, ttftErrorMs: 10, engineE2eMs: 165, e2eErrorMs: 5, engineQueueMs: 80 });
    expect(d).toMatchObject({ ttftErrorMs: 5, e2eErrorMs: 5 });
  });

  it('leaves a row unmatched when the engine never yielded a token for it', () => {
    const result = joinStamps(requests, [log('req-a', 0, 0, [], 5)]);
    expect(result.joined).toEqual([]);
    expect(result.unmatched).toBe(4);
  });
});

describe('errorStats', () => {
  it('gives n, min, median, nearest-rank p99 and max of the signed errors', () => {
    const values = Array.from({ length: 200 }, (_, i) => i + 1); // 1..200
    expect(errorStats(values)).toEqual({ n: 200, min: 1, median: 100.5, p99: 199, max: 200 });
    expect(errorStats([-1, 3, 2])).toEqual({ n: 3, min: -1, median: 2, p99: 3, max: 3 });
    expect(errorStats([]).n).toBe(0);
    expect(Number.isNaN(errorStats([]).median)).toBe(true);
  });
});

function rows(ttfts: readonly number[], failed = 0, warmup = 0): HarnessRequest[] {
  const ok = ttfts.map((ttftMs, i) => ({
    requestId: `r${i}`,
    scenario: 's',
    warmup: false,
    ok: true,
    ttftMs,
    e2eMs: 0,
  }));
  const bad = Array.from({ length: failed }, (_, i) => ({
    requestId: `f${i}`,
    scenario: 's',
    warmup: false,
    ok: false,
    ttftMs: Number.NaN,
    e2eMs: 0,
  }));
  const warm = Array.from({ length: warmup }, (_, i) => ({
    requestId: `w${i}`,
    scenario: 's',
    warmup: true,
    ok: true,
    ttftMs: 10_000,
    e2eMs: 0,
  }));
  return [...warm, ...ok, ...bad];
}

describe('sweepStep', () => {
  it('counts measured requests over the limit, a failed one as over, and passes at most the allowed share', () => {
    // 20 measured: 1 over + 1 failed = 10%: a pass at exactly the allowed share; the 5 slow warmups are not read.
    const pass = sweepStep(10, rows([...Array(18).fill(50), 250], 1, 5), 200, 0.1, 0.1);
    expect(pass).toEqual({ rate: 10, requests: 20, failed: 1, over: 2, share: 0.1, errorRate: 0.05, pass: true });
    // One more over the limit: 3 of 20 = 15%.
    const fail = sweepStep(12, rows([...Array(17).fill(50), 250, 201], 1), 200, 0.1, 0.1);
    expect(fail).toMatchObject({ over: 3, share: 0.15, pass: false });
    // A TTFT at the limit is not over it.
    expect(sweepStep(1, rows([200, 200]), 200, 0.1, 0.1)).toMatchObject({ over: 0, pass: true });
    // Errors at the error-rate limit fail the step even when the latency share would pass.
    expect(sweepStep(1, rows(Array(9).fill(50), 1), 200, 0.1, 0.1)).toMatchObject({
      share: 0.1,
      errorRate: 0.1,
      pass: false,
    });
    expect(sweepStep(1, [], 200, 0.1, 0.1).pass).toBe(false);
  });
});

describe('sweepAnswer', () => {
  const step = (rate: number, share: number, pass = share <= 0.1) => ({
    rate,
    requests: 100,
    failed: 0,
    over: share * 100,
    share,
    errorRate: 0,
    pass,
  });

  it('interpolates where the share crosses the allowed one between the last pass and the first failure', () => {
    const steps = [step(12, 0.3), step(8, 0.02), step(10, 0.06), step(14, 0.9)];
    // Between 10 (6%) and 12 (30%): 10% is 4/24 of the way.
    expect(sweepAnswer(steps, 0.1)).toEqual({ lastPass: 10, firstFail: 12, capacity: 10 + (2 * 4) / 24 });
  });

  it('takes the first failure from below, even if a higher rate passed again', () => {
    const answer = sweepAnswer([step(8, 0.05), step(10, 0.2), step(12, 0.08), step(14, 0.5)], 0.1);
    expect(answer).toMatchObject({ lastPass: 8, firstFail: 10 });
    expect(answer.capacity).toBeCloseTo(8 + (2 * 5) / 15, 10);
  });

  it('answers the last pass when the failure was the error rate, and nothing without a pass below a failure', () => {
    expect(sweepAnswer([step(8, 0.02), step(10, 0.04, false)], 0.1)).toEqual({
      lastPass: 8,
      firstFail: 10,
      capacity: 8,
    });
    expect(sweepAnswer([step(8, 0.5), step(10, 0.6)], 0.1)).toEqual({ lastPass: null, firstFail: 8, capacity: null });
    expect(sweepAnswer([step(8, 0.01), step(10, 0.02)], 0.1)).toEqual({
      lastPass: 10,
      firstFail: null,
      capacity: null,
    });
  });
});

describe('nextSweepRate', () => {
  const at = (rate: number, pass: boolean) => ({
    rate,
    requests: 100,
    failed: 0,
    over: pass ? 0 : 50,
    share: pass ? 0 : 0.5,
    errorRate: 0,
    pass,
  });

  it('starts at 0.6x the center and climbs by the step until the last `failsToStop` steps failed', () => {
    expect(nextSweepRate([], 10, 0.1, 2)).toBe(6);
    expect(nextSweepRate([at(6, true)], 10, 0.1, 2)).toBe(7);
    expect(nextSweepRate([at(6, true), at(7, true), at(8, false)], 10, 0.1, 2)).toBe(9);
    // A pass after a failure: two in a row are needed to stop.
    expect(nextSweepRate([at(6, true), at(7, false), at(8, true), at(9, false)], 10, 0.1, 2)).toBe(10);
    expect(nextSweepRate([at(6, true), at(7, true), at(8, false), at(9, false)], 10, 0.1, 2)).toBeNull();
    expect(nextSweepRate([at(6, true), at(8, false)], 10, 0.2, 1)).toBeNull();
  });

  it('goes down from the lowest while every step failed, and stops at the first pass below the failures', () => {
    expect(nextSweepRate([at(6, false)], 10, 0.2, 1)).toBe(4);
    expect(nextSweepRate([at(6, false), at(4, false)], 10, 0.2, 1)).toBe(2);
    expect(nextSweepRate([at(6, false), at(4, true)], 10, 0.2, 1)).toBeNull();
    // Never down to nothing.
    expect(nextSweepRate([at(6, false), at(4, false), at(2, false)], 10, 0.2, 1)).toBeNull();
  });

  it('stops after maxSteps', () => {
    expect(nextSweepRate([at(6, true), at(7, true)], 10, 0.1, 2, 2)).toBeNull();
  });
});
