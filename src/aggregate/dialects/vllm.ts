/**
 * `vllm bench serve` (vllm/benchmarks/serve.py `calculate_metrics` at def9ce85; the chat request function
 * in vllm/benchmarks/lib/endpoint_request_func.py at 3aee4a4f). Its clock stamps every SSE event whose
 * `choices` is non-empty: TTFT at the first one, which is the role-only chunk when the server sends one;
 * one ITL sample per such event after it (role -> first text, every text gap, last text -> finish chunk);
 * the latency ends at the last data event (a usage-only chunk included). TPOT = (latency - TTFT) /
 * (output_tokens - 1) per request with at least 2 tokens; output throughput = total output tokens /
 * benchmark duration. Means and `np.percentile` (linear) over requests, ITL pooled over every request.
 *
 * From inferbench's record: the first event is its first SSE data event; a leading gap exists when that
 * event came before the first text chunk; a trailing gap (last text -> end of the response) when the
 * response had events after its last text chunk, which then end the latency. vLLM's own servers send the
 * finish chunk and a usage-only chunk: vLLM counts one gap for the first, we one for both together.
 */
import type { DialectSummary } from '../../metrics/dialect-summary.js';
import { metricRows, numpyStats, pooledStats, windowS, dialectTotals } from './dialect-stats.js';
import type { DialectFacts, RequestFacts } from './request-facts.js';

export const VLLM_SOURCE = 'vllm-project/vllm vllm/benchmarks/serve.py @ def9ce85 (calculate_metrics)';

/** Events after the last text chunk (finish, usage): the request's stream did not end on a text chunk. */
function hasTrailingEvents(r: RequestFacts): boolean {
  const leading = r.firstEventUs < r.firstTextUs ? 1 : 0;
  return r.events > r.textChunks + leading;
}

/** vLLM's latency: its last data event, which is the end of the response when events followed the text. */
function latencyUs(r: RequestFacts): number {
  return hasTrailingEvents(r) ? r.endUs : r.lastTextUs;
}

export function vllmDialect(facts: DialectFacts): DialectSummary {
  const requests = facts.requests();
  const ttfts: number[] = [];
  const tpots: number[] = [];
  const e2es: number[] = [];
  const edgeGaps: number[] = [];
  let outputTokens = 0;
  for (const r of requests) {
    const latency = latencyUs(r);
    ttfts.push(r.firstEventUs);
    e2es.push(latency);
    if (r.outputTokens > 1) tpots.push((latency - r.firstEventUs) / (r.outputTokens - 1));
    if (r.firstEventUs < r.firstTextUs) edgeGaps.push(r.firstTextUs - r.firstEventUs);
    if (hasTrailingEvents(r)) edgeGaps.push(r.endUs - r.lastTextUs);
    outputTokens += r.outputTokens;
  }
  // Every event's gap pooled: the text-chunk gaps (sorted once) and the role and finish gaps.
  const edges = Float64Array.from(edgeGaps).sort();
  const durationS = windowS(facts);
  const metrics = metricRows([
    ['ttft_ms', numpyStats('TTFT', ttfts, 1000)],
    ['tpot_ms', numpyStats('TPOT', tpots, 1000)],
    ['itl_ms', pooledStats('ITL', facts.sortedGaps(), edges, 1000)],
    ['e2e_ms', numpyStats('E2EL', e2es, 1000)],
  ]);
  return {
    ...dialectTotals('vLLM bench serve', VLLM_SOURCE, requests.length, outputTokens, durationS),
    metrics,
  };
}
