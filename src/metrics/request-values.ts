/**
 * A finished request's values, derived once (measure/request-values.ts) and read by everyone who needs
 * them: the collector's histograms and SLO checks, and the requests.csv row. Each metric's value is in its
 * recorded unit (metric-registry.ts `scale`), and its field is named for that unit (RecordedKey): `ttft_us`
 * holds metric ttft_ms in microseconds, `decode_tps_x1000` tokens/s x 1000, `fluidity_index_x1000` the
 * fraction x 1000, token counts keep their names; so a value goes into a histogram as it is and reports
 * divide by the scale once. NaN: the request never got that far (or, for fluidity_index, the profile set
 * no deadlines).
 */
import { METRIC_NAMES, type MetricName, metricDefinition } from './metric-registry.js';

/** Metrics a request has one value of (itl_ms has one per gap, recorded from the record's chunk times). */
export type RequestMetricName = Exclude<MetricName, 'itl_ms'>;

/** The RecordedValues field of metric M, named for the unit it holds: µs for *_ms, x1000 for the other scaled ones. */
export type RecordedKey<M extends RequestMetricName = RequestMetricName> = M extends `${infer Base}_ms`
  ? `${Base}_us`
  : M extends 'decode_tps' | 'fluidity_index'
    ? `${M}_x1000`
    : M;

/** Each request metric's field in RecordedValues (derived from the registry's names and scales). */
export const RECORDED_KEY: { readonly [M in RequestMetricName]: RecordedKey<M> } = Object.fromEntries(
  METRIC_NAMES.filter((name): name is RequestMetricName => name !== 'itl_ms').map((name) => [
    name,
    name.endsWith('_ms')
      ? `${name.slice(0, -'_ms'.length)}_us`
      : metricDefinition(name)?.scale === 1000
        ? `${name}_x1000`
        : name,
  ]),
) as { readonly [M in RequestMetricName]: RecordedKey<M> };

export type RecordedValues = { [M in RequestMetricName as RecordedKey<M>]: number } & {
  /** Mean and largest gap between chunks carrying text, µs (NaN with fewer than 2 such chunks). */
  itlMeanUs: number;
  itlMaxUs: number;
  /** True when the token counts are the client's estimate (the server sent no usage). */
  tokensEstimated: boolean;
  /** |client count of the received text - usage.completion_tokens|; NaN when not checked. */
  tokenMismatch: number;
};

/** A values object with nothing measured, to fill and reuse. */
export function createRecordedValues(): RecordedValues {
  return {
    ttfb_us: Number.NaN,
    ttft_us: Number.NaN,
    ttfo_us: Number.NaN,
    tpot_us: Number.NaN,
    e2e_us: Number.NaN,
    queue_time_us: Number.NaN,
    prompt_time_us: Number.NaN,
    completion_time_us: Number.NaN,
    total_time_us: Number.NaN,
    client_overhead_us: Number.NaN,
    schedule_lag_us: Number.NaN,
    connect_us: Number.NaN,
    tls_handshake_us: Number.NaN,
    output_tokens: Number.NaN,
    input_tokens: Number.NaN,
    reasoning_tokens: Number.NaN,
    cached_tokens: Number.NaN,
    decode_tps_x1000: Number.NaN,
    fluidity_index_x1000: Number.NaN,
    itlMeanUs: Number.NaN,
    itlMaxUs: Number.NaN,
    tokensEstimated: false,
    tokenMismatch: Number.NaN,
  };
}
