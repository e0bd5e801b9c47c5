/**
 * The one place a finished request becomes its values (STYLE 13): every per-request metric of
 * metrics/metric-registry.ts, in its recorded unit, from the record and its token counts (made once by
 * the runner). The collector and the requests.csv row both read the result; nothing derives them again.
 */
import type { RequestRecord } from '../client/request-record.js';
import type { RecordedValues } from '../metrics/request-values.js';
import { connectUs, tlsHandshakeUs } from './connection-timings.js';
import { type FluidityDeadlines, fluidityIndexRecorded } from './fluidity.js';
import {
  decodeTps,
  e2eUs,
  itlGapCount,
  itlGapUs,
  scheduleLagUs,
  tpotUs,
  ttfbUs,
  ttfoUs,
  ttftUs,
} from './request-timings.js';
import { clientOverheadUs, completionTimeUs, promptTimeUs, queueTimeUs, totalTimeUs } from './server-timings.js';
import type { TokenCounts } from './token-counts.js';

/**
 * Fills `out` (reused by the caller: no allocation per request) and returns it. `deadlines`: the
 * profile's `deadlines:` (fluidity_index is NaN without them).
 */
export function fillRecordedValues(
  record: RequestRecord,
  tokens: TokenCounts,
  out: RecordedValues,
  deadlines: FluidityDeadlines | null = null,
): RecordedValues {
  out.schedule_lag_us = scheduleLagUs(record);
  out.connect_us = connectUs(record);
  out.tls_handshake_us = tlsHandshakeUs(record);
  out.ttfb_us = ttfbUs(record);
  out.ttft_us = ttftUs(record);
  out.ttfo_us = ttfoUs(record);
  out.e2e_us = e2eUs(record);
  out.tpot_us = tpotUs(record, tokens.output);
  out.decode_tps_x1000 = decodeTps(record, tokens.output) * 1000;
  out.fluidity_index_x1000 = fluidityIndexRecorded(record, deadlines);
  out.queue_time_us = queueTimeUs(record);
  out.prompt_time_us = promptTimeUs(record);
  out.completion_time_us = completionTimeUs(record);
  out.total_time_us = totalTimeUs(record);
  out.client_overhead_us = clientOverheadUs(record);
  out.input_tokens = tokens.input;
  out.output_tokens = tokens.output;
  out.reasoning_tokens = tokens.reasoning;
  out.cached_tokens = tokens.cached;
  out.tokensEstimated = tokens.estimated;
  out.tokenMismatch = tokens.mismatch;
  const gaps = itlGapCount(record);
  let maxUs = Number.NaN;
  let sumUs = 0;
  for (let i = 0; i < gaps; i++) {
    const gapUs = itlGapUs(record, i);
    sumUs += gapUs;
    if (!(gapUs <= maxUs)) maxUs = gapUs;
  }
  out.itlMeanUs = gaps > 0 ? sumUs / gaps : Number.NaN;
  out.itlMaxUs = maxUs;
  return out;
}
