/**
 * A finished request's values, derived once (measure/request-values.ts) and read by everyone who needs
 * them: the collector's histograms and SLO checks, and the requests.csv row. Each metric's value is in its
 * recorded unit (metric-registry.ts `scale`): microseconds for *_ms, tokens, tokens/s x 1000 for
 * decode_tps, the fraction x 1000 for fluidity_index, so it goes into a histogram as it is and reports
 * divide by the scale once. NaN: the request never got that far (or, for fluidity_index, the profile set
 * no deadlines).
 */
import type { MetricName } from './metric-registry.js';

/** Metrics a request has one value of (itl_ms has one per gap, recorded from the record's chunk times). */
export type RequestMetricName = Exclude<MetricName, 'itl_ms'>;

export type RecordedValues = { [M in RequestMetricName]: number } & {
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
    ttfb_ms: Number.NaN,
    ttft_ms: Number.NaN,
    ttfo_ms: Number.NaN,
    tpot_ms: Number.NaN,
    e2e_ms: Number.NaN,
    queue_time_ms: Number.NaN,
    prompt_time_ms: Number.NaN,
    completion_time_ms: Number.NaN,
    total_time_ms: Number.NaN,
    client_overhead_ms: Number.NaN,
    schedule_lag_ms: Number.NaN,
    connect_ms: Number.NaN,
    tls_handshake_ms: Number.NaN,
    output_tokens: Number.NaN,
    input_tokens: Number.NaN,
    reasoning_tokens: Number.NaN,
    cached_tokens: Number.NaN,
    decode_tps: Number.NaN,
    fluidity_index: Number.NaN,
    itlMeanUs: Number.NaN,
    itlMaxUs: Number.NaN,
    tokensEstimated: false,
    tokenMismatch: Number.NaN,
  };
}
