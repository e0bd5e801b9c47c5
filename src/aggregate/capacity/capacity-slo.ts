/**
 * The profile's `slo:` block read as exceedance objectives for a capacity search: `ttft_ms.p99: 500`
 * holds while at most 1% of requests take longer than 500 ms, so the allowed exceedance fraction is
 * 1 - 0.99. Only percentiles can be read this way (a mean is not a fraction of requests; `max` would allow
 * none), and only latency metrics (metric-registry.ts) and `error_rate`. Values are numbers in the metric's
 * unit (ms, as the profile's `slo:` block has them) or strings whose unit cannot be misread: "500ms",
 * "0.5s", "250us" (a bare "500" is refused: seconds or milliseconds?), optionally after "<" or "<=", as in
 * `ttft_ms.p99 < 500ms`; an error rate is a fraction (0.01) or a percentage ("1%"). Every problem is
 * reported at once, each naming its key.
 *
 * fluidity_index (etalon's deadline metric, higher is better) is read from the low tail:
 * `fluidity_index.p1: 0.9` holds while at most 1% of requests have a fluidity index below 0.9 (allowed =
 * 0.01; its limit a fraction, 0.9 or "90%"). That is etalon's criterion for its fluid token generation
 * rate (99% of requests at fluidity >= 0.9). Failed requests exceed it like every other objective.
 */
import { InferbenchError } from '../../errors.js';
import { LATENCY_METRICS } from '../../metrics/metric-registry.js';
import { isServerObjectiveKey, parseServerObjective, type ServerObjective } from './server-objective.js';

export interface CapacityObjective {
  /** "ttft_ms.p99", "e2e_ms.p95", "itl_ms.p99", "error_rate". */
  readonly key: string;
  /** "ttft_ms", "error_rate", ... */
  readonly metric: string;
  /** Allowed exceedance fraction (p99 -> 0.01; an error_rate limit as a fraction). */
  readonly allowed: number;
  /** In the metric's unit (ms for *_ms); for error_rate the same as allowed. */
  readonly limit: number;
}

const ERROR_RATE = 'error_rate';
const FLUIDITY = 'fluidity_index';
/** p1 .. p50 for fluidity_index: the percentile is the fraction of requests allowed below the limit. */
const LOW_PERCENTILE = /^p(\d{1,2}(?:\.\d+)?)$/;
/** A floor: "0.9", "90%", optionally after ">=" (never "<": the limit is a minimum). */
const FLOOR = /^(?:>=?\s*)?(\d+(?:\.\d+)?)\s*(%?)$/;
const MS_PER_UNIT: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1000 };
const DURATION = /^(?:<=?\s*)?(\d+(?:\.\d+)?)\s*(us|ms|s)$/;
const RATE = /^(?:<=?\s*)?(\d+(?:\.\d+)?)\s*(%?)$/;
/** p50 .. p99.9; `p999` is the registry's name of p99.9. */
const PERCENTILE = /^p(\d{2}(?:\.\d+)?)$/;

type Parsed = CapacityObjective | string;

/**
 * The request objectives of an SLO block, in its order; throws BAD_PROFILE listing every bad entry (server
 * objectives too: parseServerSlo reads those, and a block of server objectives alone is refused, since only
 * the requests' tests can pass a step).
 */
export function parseCapacitySlo(slo: Readonly<Record<string, number | string>>): CapacityObjective[] {
  const objectives: CapacityObjective[] = [];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(slo)) {
    if (isServerObjectiveKey(key)) {
      const server = parseServerObjective(key, value);
      if (typeof server === 'string') problems.push(`slo["${key}"]: ${server}`);
      continue;
    }
    const parsed =
      key === ERROR_RATE
        ? parseErrorRate(value)
        : key.startsWith(`${FLUIDITY}.`)
          ? parseFluidity(key, value)
          : parseLatency(key, value);
    if (typeof parsed === 'string') problems.push(`slo["${key}"]: ${parsed}`);
    else objectives.push(parsed);
  }
  if (problems.length > 0) {
    throw new InferbenchError('BAD_PROFILE', problems.join('\n'), {
      hint: 'capacity SLOs look like `ttft_ms.p99: 500ms` (or 500, in ms) and `error_rate: 1%` (or 0.01)',
    });
  }
  if (objectives.length === 0) {
    throw new InferbenchError(
      'BAD_PROFILE',
      "capacity needs at least one SLO on the requests (a latency percentile or error_rate) in the profile's `slo:` block",
      {
        hint: 'e.g. slo: { ttft_ms.p99: 500ms, itl_ms.p99: 50ms } (a server objective such as kv_cache_usage.max: 95% only adds to those)',
      },
    );
  }
  return objectives;
}

/** The server objectives of an SLO block (`kv_cache_usage.max: 95%`), in its order; parseCapacitySlo checked them. */
export function parseServerSlo(slo: Readonly<Record<string, number | string>>): ServerObjective[] {
  return Object.entries(slo).flatMap(([key, value]) => {
    const parsed = isServerObjectiveKey(key) ? parseServerObjective(key, value) : null;
    return parsed === null || typeof parsed === 'string' ? [] : [parsed];
  });
}

function parseErrorRate(value: number | string): Parsed {
  let fraction: number;
  if (typeof value === 'number') {
    fraction = value;
  } else {
    const match = RATE.exec(value.trim());
    if (!match) return `expected a fraction (0.01) or a percentage ("1%"), got "${value}"`;
    fraction = Number(match[1]) / (match[2] === '%' ? 100 : 1);
  }
  if (!Number.isFinite(fraction) || fraction <= 0) {
    return `an error rate of ${value} cannot be shown by any number of requests; allow a little, e.g. 0.001`;
  }
  if (fraction >= 1) return `${value} is not a fraction below 1; for a percentage write "${value}%"`;
  return { key: ERROR_RATE, metric: ERROR_RATE, allowed: fraction, limit: fraction };
}

function parseLatency(key: string, value: number | string): Parsed {
  const dot = key.indexOf('.');
  const metric = dot < 0 ? key : key.slice(0, dot);
  const stat = dot < 0 ? '' : key.slice(dot + 1);
  if (!(LATENCY_METRICS as readonly string[]).includes(metric)) {
    return `capacity can search on latency metrics (${LATENCY_METRICS.join(', ')}), ${FLUIDITY}, error_rate and server concepts (kv_cache_usage.max, ...), not "${metric}"`;
  }
  const allowed = allowedOver(stat);
  if (allowed === null) {
    return `expected a percentile from p50 to p99.9 (the fraction of requests allowed over the limit), got "${stat}"`;
  }
  const limit = parseLimitMs(value);
  if (typeof limit === 'string') return limit;
  return { key, metric, allowed, limit };
}

/**
 * The fraction of requests a latency percentile (`p50` .. `p99.9`, `p999`) allows over its limit: 0.01 for
 * p99; null for any other stat. Thresholds judged by a sequential test (decided-stop.ts) read it too.
 */
export function allowedOver(stat: string): number | null {
  const percentile = parsePercentile(stat);
  // Rounded so that p99 gives exactly 0.01, not 0.010000000000000009.
  return percentile === null ? null : Math.round((100 - percentile) * 1e9) / 1e11;
}

/** `fluidity_index.p1: 0.9`: at most 1% of requests below a fluidity index of 0.9. */
function parseFluidity(key: string, value: number | string): Parsed {
  const match = LOW_PERCENTILE.exec(key.slice(FLUIDITY.length + 1));
  const percentile = match ? Number(match[1]) : Number.NaN;
  if (!(percentile > 0 && percentile <= 50)) {
    return `expected a low percentile from p1 to p50 (the fraction of requests allowed below the limit; higher is better), e.g. ${FLUIDITY}.p1`;
  }
  let limit: number;
  if (typeof value === 'number') {
    limit = value;
  } else {
    const floor = FLOOR.exec(value.trim());
    limit = floor ? Number(floor[1]) / (floor[2] === '%' ? 100 : 1) : Number.NaN;
  }
  if (!(limit > 0 && limit <= 1)) return `expected a fluidity index above 0 and at most 1 (0.9 or "90%"), got ${value}`;
  return { key, metric: FLUIDITY, allowed: Math.round(percentile * 1e9) / 1e11, limit };
}

function parsePercentile(stat: string): number | null {
  if (stat === 'p999') return 99.9;
  const match = PERCENTILE.exec(stat);
  if (!match) return null;
  const percentile = Number(match[1]);
  return percentile >= 50 && percentile <= 99.9 ? percentile : null;
}

function parseLimitMs(value: number | string): number | string {
  if (typeof value === 'number') {
    return Number.isFinite(value) && value > 0 ? value : `expected a positive number of milliseconds, got ${value}`;
  }
  const match = DURATION.exec(value.trim());
  if (!match) return `expected a duration with its unit ("500ms", "0.5s"), got "${value}"`;
  const ms = Number(match[1]) * (MS_PER_UNIT[match[2] as string] as number);
  return ms > 0 ? ms : `expected a positive duration, got "${value}"`;
}
