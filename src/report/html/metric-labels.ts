/** Human names and units of summary.json metrics, shared by the HTML pages, compare, JUnit and markdown. */
import type { MetricName } from '../run-summary.js';

export const METRIC_LABELS: Record<MetricName, string> = {
  ttfb_ms: 'Time to first byte',
  ttft_ms: 'Time to first token (TTFT)',
  ttfo_ms: 'Time to first output token',
  itl_ms: 'Inter-token latency (ITL)',
  tpot_ms: 'Time per output token (TPOT)',
  e2e_ms: 'End-to-end latency',
  queue_time_ms: 'Server queue time',
  prompt_time_ms: 'Server prompt time',
  completion_time_ms: 'Server completion time',
  total_time_ms: 'Server total time',
  client_overhead_ms: 'Client overhead (e2e - total_time)',
  schedule_lag_ms: 'Schedule lag',
  connect_ms: 'TCP connect (new connections)',
  tls_handshake_ms: 'TLS handshake (new connections)',
  output_tokens: 'Output tokens',
  input_tokens: 'Input tokens',
  reasoning_tokens: 'Reasoning tokens',
  cached_tokens: 'Cached tokens',
  decode_tps: 'Decode speed',
};

/** Short names for axis labels and legends. */
export const METRIC_SHORT: Record<MetricName, string> = {
  ttfb_ms: 'TTFB',
  ttft_ms: 'TTFT',
  ttfo_ms: 'TTFO',
  itl_ms: 'ITL',
  tpot_ms: 'TPOT',
  e2e_ms: 'E2E',
  queue_time_ms: 'queue time',
  prompt_time_ms: 'prompt time',
  completion_time_ms: 'completion time',
  total_time_ms: 'total time',
  client_overhead_ms: 'client overhead',
  schedule_lag_ms: 'schedule lag',
  connect_ms: 'connect',
  tls_handshake_ms: 'TLS handshake',
  output_tokens: 'output tokens',
  input_tokens: 'input tokens',
  reasoning_tokens: 'reasoning tokens',
  cached_tokens: 'cached tokens',
  decode_tps: 'decode speed',
};

/** The unit a metric is reported in. */
export function metricUnit(metric: string): string {
  if (metric.endsWith('_ms')) return 'ms';
  if (metric === 'decode_tps' || metric.endsWith('_per_s')) return metric === 'decode_tps' ? 'tokens/s' : '/s';
  if (metric.endsWith('_tokens')) return 'tokens';
  return '';
}
