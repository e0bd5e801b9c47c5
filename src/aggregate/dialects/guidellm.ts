/**
 * GuideLLM (vllm-project/guidellm at ee7a7745, v0.7.3+12). Its HTTP backend stamps the first and last
 * iteration that carried content, reasoning or tool calls (backends/openai/http.py; a role-only chunk
 * does not count), and the request end after the stream closed. Per request
 * (schemas/request_stats.py): TTFT = first token - start; TPOT = (last token - start) / output tokens,
 * so it includes the first token's wait; ITL = (last token - first token) / (output tokens - 1), which
 * excludes it; request latency = end - start. The benchmark's distributions (benchmark/schemas/metrics.py)
 * weight TPOT by the request's output tokens and ITL by its output tokens - 1, so their mean is total time
 * over total tokens; percentiles are the first value whose cumulative weight reaches p
 * (schemas/statistics.py). Output tokens/s: the mean of its rate distribution, which is the output tokens
 * over the benchmark's window. Token counts are the server's usage (GuideLLM's too). Rows by concept: its ITL
 * is a per-request (latency - TTFT) / (tokens - 1), in `tpot_ms`; its TPOT, TTFT included, in `tpot_with_ttft_ms`.
 */
import type { DialectSummary } from '../../metrics/dialect-summary.js';
import { metricRows, weightedStats, windowS, dialectTotals } from './dialect-stats.js';
import type { DialectFacts } from './request-facts.js';

export const GUIDELLM_SOURCE = 'vllm-project/guidellm src/guidellm/schemas/request_stats.py @ ee7a7745 (v0.7.3+12)';

export function guidellmDialect(facts: DialectFacts): DialectSummary {
  const requests = facts.requests();
  const ttfts: [number, number][] = [];
  const tpots: [number, number][] = [];
  const itls: [number, number][] = [];
  const latencies: [number, number][] = [];
  for (const r of requests) {
    ttfts.push([r.firstTextUs / 1000, 1]);
    latencies.push([r.endUs / 1000, 1]);
    const n = r.outputTokens;
    if (n > 0) tpots.push([r.lastTextUs / 1000 / n, n]);
    if (n > 1) itls.push([(r.lastTextUs - r.firstTextUs) / 1000 / (n - 1), n - 1]);
  }
  const durationS = windowS(facts);
  return {
    ...dialectTotals('GuideLLM', GUIDELLM_SOURCE, facts, durationS),
    metrics: metricRows([
      ['ttft_ms', weightedStats('time_to_first_token_ms', ttfts)],
      ['tpot_ms', weightedStats('inter_token_latency_ms', itls)],
      ['tpot_with_ttft_ms', weightedStats('time_per_output_token_ms', tpots)],
      ['e2e_ms', weightedStats('request_latency', latencies)],
    ]),
  };
}
