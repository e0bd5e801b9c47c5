/**
 * NVIDIA AIPerf (ai-dynamo/aiperf at db4f6397, aiperf/metrics/types/). Its parser keeps only the chunks
 * that carry content or reasoning (aiperf/parsers/openai_parsers.py), so TTFT is the first of them and the
 * request latency ends at the last of them, not at the end of the stream. "ITL" is a per-request average,
 * (request latency - TTFT) / (output tokens - 1), for at least 2 tokens (inter_token_latency_metric.py);
 * the gaps between consecutive chunks are "ICL", inter chunk latency, pooled over requests
 * (inter_chunk_latency_metric.py). The rows are by concept: its ITL in `tpot_ms`, its ICL in `itl_ms`. Output token throughput = total output tokens / benchmark duration,
 * the duration from the first request's start to the last response (benchmark_duration_metric.py).
 * Means and `np.percentile` (linear) (aiperf/metrics/metric_dicts.py).
 *
 * AIPerf counts output tokens with its own tokenizer on the received text (reasoning included); here the
 * counts are inferbench's recorded ones (the server's usage, or inferbench's estimate where it sent none).
 */
import type { DialectSummary } from '../../metrics/dialect-summary.js';
import { metricRows, numpyStats, sortedStats, dialectTotals } from './dialect-stats.js';
import type { DialectFacts } from './request-facts.js';

export const AIPERF_SOURCE = 'ai-dynamo/aiperf aiperf/metrics/types/ @ db4f6397';

export function aiperfDialect(facts: DialectFacts): DialectSummary {
  const requests = facts.requests();
  const ttfts: number[] = [];
  const itls: number[] = [];
  const latencies: number[] = [];
  for (const r of requests) {
    ttfts.push(r.firstTextUs);
    latencies.push(r.lastTextUs);
    if (r.outputTokens >= 2) itls.push((r.lastTextUs - r.firstTextUs) / (r.outputTokens - 1));
  }
  const durationS = facts.count > 0 ? (facts.lastTextAtUs - facts.firstStartUs) / 1e6 : 0;
  return {
    ...dialectTotals('AIPerf', AIPERF_SOURCE, facts, durationS),
    metrics: metricRows([
      ['ttft_ms', numpyStats('Time to First Token (TTFT)', ttfts, 1000)],
      ['itl_ms', sortedStats('Inter Chunk Latency (ICL)', facts.sortedGaps(), 1000)],
      ['tpot_ms', numpyStats('Inter Token Latency (ITL)', itls, 1000)],
      ['e2e_ms', numpyStats('Request Latency', latencies, 1000)],
    ]),
  };
}
