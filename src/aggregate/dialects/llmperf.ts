/**
 * Ray's llmperf (ray-project/llmperf at f1d6bed4). Its chat client
 * (src/llmperf/ray_clients/openai_chat_completions_client.py) stamps TTFT at the first chunk with
 * non-empty `delta.content`, and appends to one list TTFT and then the gap before every later content
 * chunk, so the list sums to the time of the last content chunk; it also counts every data event but
 * [DONE] as a "token". token_benchmark_ray.py then divides that sum by the count: inter_token_latency_s =
 * (last content chunk - start) / SSE events, TTFT included. Its client sends no `stream_options`, so it
 * never receives the usage-only chunk (`choices: []`) that inferbench asks for by default (and would fail
 * on one): the divisor here is the events with a non-empty `choices` (role, text, finish chunks). (Requests collected after the launch loop
 * are divided by the tokenizer's count instead.) It counts output tokens with a Llama tokenizer on the
 * text; request_output_throughput = tokens / e2e; overall output throughput = total tokens / the test's
 * duration. Means and pandas' `Series.quantile` (linear, as numpy), in seconds (here in ms).
 *
 * Here the output tokens are inferbench's recorded counts (the server's usage, or inferbench's
 * estimate), not a Llama tokenizer's; the text chunks are those with content, reasoning or tool-call
 * arguments (llmperf looks at content only). Its "inter token latency" is a per-request time to the last
 * content chunk over its chunks, TTFT included: the `tpot_with_ttft_ms` row, not pooled gaps.
 */
import type { DialectSummary } from '../../metrics/dialect-summary.js';
import { metricRows, numpyStats, windowS, dialectTotals } from './dialect-stats.js';
import type { DialectFacts } from './request-facts.js';

export const LLMPERF_SOURCE = 'ray-project/llmperf token_benchmark_ray.py @ f1d6bed4';

export function llmperfDialect(facts: DialectFacts): DialectSummary {
  const requests = facts.requests();
  const ttfts: number[] = [];
  const itls: number[] = [];
  const e2es: number[] = [];
  const throughputs: number[] = [];
  for (const r of requests) {
    ttfts.push(r.firstTextUs);
    itls.push(r.choiceEvents > 0 ? r.lastTextUs / r.choiceEvents : 0);
    e2es.push(r.endUs);
    throughputs.push(r.endUs > 0 ? r.outputTokens / (r.endUs / 1e6) : 0);
  }
  const durationS = windowS(facts);
  return {
    ...dialectTotals('llmperf', LLMPERF_SOURCE, facts, durationS),
    metrics: metricRows([
      ['ttft_ms', numpyStats('ttft_s', ttfts, 1000)],
      ['tpot_with_ttft_ms', numpyStats('inter_token_latency_s', itls, 1000)],
      ['e2e_ms', numpyStats('end_to_end_latency_s', e2es, 1000)],
      ['request_output_tokens_per_s', numpyStats('request_output_throughput_token_per_s', throughputs)],
    ]),
  };
}
