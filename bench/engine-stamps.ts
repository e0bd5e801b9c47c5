/**
 * The pure parts of `npm run bench engine` (engine-bench.ts), tested in test/unit/bench/engine-stamps.test.ts:
 *
 * - the join of a run's requests.csv with the engine's own request log, by the x-request-id the harness
 *   sent (requests.csv `request_id`, the engine log's `requestId`), and the harness's TTFT and E2E error
 *   against the engine's stamps. Both sides are durations, each on one monotonic clock, so no clock offset
 *   enters: harness TTFT (closed loop: its socket write -> the first content chunk read from the socket)
 *   minus engine TTFT (the request's arrival at the server, after its body was read -> the evaluate
 *   iterator yielding its first token). The error holds what the engine cannot see: the request's way to
 *   the server (write, read, JSON parse, chat template) and the token's way back (SSE write, socket, read).
 * - the brute-force sweep's verdict per step (the share of measured requests over a latency limit, a
 *   failed request counting as over, as the capacity search counts them) and the capacity it implies.
 */
import { median, quantile } from './accuracy-quantiles.js';

/** One requests.csv row as the join needs it (ms). */
export interface HarnessRequest {
  readonly requestId: string;
  readonly scenario: string;
  readonly warmup: boolean;
  readonly ok: boolean;
  readonly ttftMs: number;
  readonly e2eMs: number;
}

/** The engine's stamps of one request (performance.now() ms of the engine's process). */
export interface EngineStamps {
  readonly requestId: string | null;
  readonly arrivedMs: number;
  readonly startedMs: number;
  readonly tokenTimesMs: readonly number[];
  readonly endedMs: number;
}

/** One request seen by both sides (ms). */
export interface JoinedRequest {
  readonly requestId: string;
  readonly scenario: string;
  readonly harnessTtftMs: number;
  /** Arrival at the server -> first token yielded. */
  readonly engineTtftMs: number;
  readonly ttftErrorMs: number;
  readonly harnessE2eMs: number;
  /** Arrival at the server -> end of the generation (after the last token was yielded). */
  readonly engineE2eMs: number;
  readonly e2eErrorMs: number;
  /** Arrival -> a sequence given (waiting for a free sequence). */
  readonly engineQueueMs: number;
}

export interface JoinResult {
  readonly joined: JoinedRequest[];
  /** Measured ok rows without an engine log of their id (or whose id the engine saw twice). */
  readonly unmatched: number;
  /** Measured rows that failed (not joined: they have no TTFT). */
  readonly failed: number;
}

const cellNumber = (cell: string | undefined): number =>
  cell === undefined || cell === '' ? Number.NaN : Number(cell);

/** requests.csv records (parseCsvRecords) as HarnessRequests. */
export function harnessRequests(records: readonly Readonly<Record<string, string>>[]): HarnessRequest[] {
  return records.map((r) => ({
    requestId: r['request_id'] ?? '',
    scenario: r['scenario'] ?? '',
    warmup: r['warmup'] === '1',
    ok: r['error_class'] === '' && r['status'] === '200',
    ttftMs: cellNumber(r['ttft_ms']),
    e2eMs: cellNumber(r['e2e_ms']),
  }));
}

/** The measured (not warmup) requests joined with the engine's stamps by request id. */
export function joinStamps(requests: readonly HarnessRequest[], logs: readonly EngineStamps[]): JoinResult {
  const byId = new Map<string, EngineStamps | null>();
  for (const log of logs) {
    if (log.requestId === null) continue;
    byId.set(log.requestId, byId.has(log.requestId) ? null : log);
  }
  const joined: JoinedRequest[] = [];
  let unmatched = 0;
  let failed = 0;
  for (const request of requests) {
    if (request.warmup) continue;
    if (!request.ok) {
      failed++;
      continue;
    }
    const log = byId.get(request.requestId);
    const first = log?.tokenTimesMs[0];
    if (log === undefined || log === null || first === undefined) {
      unmatched++;
      continue;
    }
    const engineTtftMs = first - log.arrivedMs;
    const engineE2eMs = log.endedMs - log.arrivedMs;
    joined.push({
      requestId: request.requestId,
      scenario: request.scenario,
      harnessTtftMs: request.ttftMs,
      engineTtftMs,
      ttftErrorMs: request.ttftMs - engineTtftMs,
      harnessE2eMs: request.e2eMs,
      engineE2eMs,
      e2eErrorMs: request.e2eMs - engineE2eMs,
      engineQueueMs: log.startedMs - log.arrivedMs,
    });
  }
  return { joined, unmatched, failed };
}

/** Signed statistics of errors (ms); NaN when empty. `min` below 0 would mean the harness saw less than the engine did. */
export interface ErrorStats {
  readonly n: number;
  readonly min: number;
  readonly median: number;
  readonly p99: number;
  readonly max: number;
}

export function errorStats(values: readonly number[]): ErrorStats {
  return {
    n: values.length,
    min: quantile(values, 0),
    median: median(values),
    p99: quantile(values, 0.99),
    max: quantile(values, 1),
  };
}

/** One brute-force step: the requests of one rate. */
export interface SweepStep {
  readonly rate: number;
  readonly requests: number;
  readonly failed: number;
  /** Requests over the limit, failed ones included. */
  readonly over: number;
  readonly share: number;
  readonly errorRate: number;
  readonly pass: boolean;
}

/**
 * A step's verdict on its measured requests: PASS when the share over `limitMs` (failed requests count as
 * over every latency limit) is at most `allowedShare` (0.1 for a p90) and the error rate below `maxErrorRate`.
 */
export function sweepStep(
  rate: number,
  requests: readonly HarnessRequest[],
  limitMs: number,
  allowedShare: number,
  maxErrorRate: number,
): SweepStep {
  const measured = requests.filter((r) => !r.warmup);
  const failed = measured.filter((r) => !r.ok).length;
  const over = measured.filter((r) => !r.ok || !(r.ttftMs <= limitMs)).length;
  const n = measured.length;
  const share = n === 0 ? Number.NaN : over / n;
  const errorRate = n === 0 ? Number.NaN : failed / n;
  return {
    rate,
    requests: n,
    failed,
    over,
    share,
    errorRate,
    pass: n > 0 && share <= allowedShare && errorRate < maxErrorRate,
  };
}

/** What a sweep says: the highest passing rate below the first failing one, and where the share crosses the allowed one. */
export interface SweepAnswer {
  readonly lastPass: number | null;
  readonly firstFail: number | null;
  /**
   * The rate where the share over the limit crosses `allowedShare`, linear between lastPass and firstFail
   * (lastPass when the failure is the error rate's, or its share is not above the allowed); null without a
   * pass below a failure.
   */
  readonly capacity: number | null;
}

export function sweepAnswer(steps: readonly SweepStep[], allowedShare: number): SweepAnswer {
  const sorted = [...steps].sort((a, b) => a.rate - b.rate);
  const failAt = sorted.findIndex((s) => !s.pass);
  const fail = failAt < 0 ? undefined : sorted[failAt];
  const pass = failAt < 0 ? sorted.at(-1) : failAt === 0 ? undefined : sorted[failAt - 1];
  if (pass === undefined || fail === undefined)
    return { lastPass: pass?.rate ?? null, firstFail: fail?.rate ?? null, capacity: null };
  let capacity = pass.rate;
  if (fail.share > allowedShare && fail.share > pass.share) {
    const t = (allowedShare - pass.share) / (fail.share - pass.share);
    capacity = pass.rate + Math.max(0, Math.min(1, t)) * (fail.rate - pass.rate);
  }
  return { lastPass: pass.rate, firstFail: fail.rate, capacity };
}

/**
 * The sweep's next rate: 0.6x `center` first, then up in steps of `stepShare` x `center` until the last
 * `failsToStop` steps failed; when every step so far failed, down from the lowest instead, until one
 * passes (the pass below the failures brackets the answer). Null when done, or after `maxSteps`.
 */
export function nextSweepRate(
  steps: readonly SweepStep[],
  center: number,
  stepShare: number,
  failsToStop: number,
  maxSteps = 14,
): number | null {
  const round = (rate: number): number => Number(rate.toFixed(2));
  if (steps.length >= maxSteps) return null;
  const last = steps.at(-1);
  if (last === undefined) return round(0.6 * center);
  const rates = steps.map((s) => s.rate);
  const lowest = Math.min(...rates);
  if (!steps.some((s) => s.pass)) {
    const next = lowest - stepShare * center;
    return next > 0.05 * center ? round(next) : null;
  }
  if (last.pass && steps.length > 1 && last.rate === lowest) return null;
  const tail = steps.slice(-failsToStop);
  if (tail.length === failsToStop && tail.every((s) => !s.pass)) return null;
  return round(Math.max(...rates) + stepShare * center);
}
