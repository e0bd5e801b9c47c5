/**
 * `vllm bench serve` (vllm/benchmarks/serve.py `calculate_metrics` at def9ce85; the chat request function
 * in vllm/benchmarks/lib/endpoint_request_func.py at 3aee4a4f). Its clock stamps every SSE event whose
 * `choices` is non-empty: TTFT at the first one, which is the role-only chunk when the server sends one;
 * one ITL sample per such event after it (role -> first text, every text gap, last text -> finish chunk);
 * the latency ends at the last data event (a usage-only chunk included). TPOT = (latency - TTFT) /
 * (output_tokens - 1) per request with at least 2 tokens; output throughput = total output tokens /
 * benchmark duration. Means and `np.percentile` (linear) over requests, ITL pooled over every request.
 *
 * From inferbench's record: TTFT = first SSE data event; a leading gap when that event came before the
 * first text chunk; a trailing gap from the last text chunk to the last event with `choices` (the finish
 * chunk); the latency ends at the end of the response when a usage-only chunk followed (inferbench keeps the
 * time of the end marker, which follows it at once), else at the last event with `choices`. vLLM also takes
 * one sample at every event with `choices` but no text *between* text chunks (an empty-content chunk, a
 * tool-call header); inferbench keeps the time of text chunks only, so there it has one sample (their sum)
 * where vLLM has two or more (docs/dialects.md).
 */
import type { DialectSummary } from '../../metrics/dialect-summary.js';
import { metricRows, numpyStats, pooledStats, windowS, dialectTotals } from './dialect-stats.js';
import type { DialectFacts, RequestFacts } from './request-facts.js';

export const VLLM_SOURCE = 'vllm-project/vllm vllm/benchmarks/serve.py @ def9ce85 (calculate_metrics)';

/** vLLM's latency: its last data event, a usage-only chunk included (then the end of the response). */
function latencyUs(r: RequestFacts): number {
  return r.events > r.choiceEvents ? r.endUs : Math.max(r.lastChoiceUs, r.lastTextUs);
}

export function vllmDialect(facts: DialectFacts): DialectSummary {
  const requests = facts.requests();
  const ttfts: number[] = [];
  const tpots: number[] = [];
  const e2es: number[] = [];
  for (const r of requests) {
    const latency = latencyUs(r);
    ttfts.push(r.firstEventUs);
    e2es.push(latency);
    if (r.outputTokens > 1) tpots.push((latency - r.firstEventUs) / (r.outputTokens - 1));
  }
  const durationS = windowS(facts);
  const metrics = metricRows([
    ['ttft_ms', numpyStats('TTFT', ttfts, 1000)],
    ['tpot_ms', numpyStats('TPOT', tpots, 1000)],
    ['itl_ms', pooledStats('ITL', facts.sortedGaps(), facts.sortedEdgeGaps(), 1000)],
    ['e2e_ms', numpyStats('E2EL', e2es, 1000)],
  ]);
  return {
    ...dialectTotals('vLLM bench serve', VLLM_SOURCE, facts, durationS),
    metrics,
  };
}
