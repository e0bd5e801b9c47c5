/**
 * The metric vocabulary, declared once: every per-request metric of summary.json with its unit, the
 * scale of its histogram, its direction, its labels, its requests.csv column and the per-request value it
 * is recorded from; and the group-level values, which have no stat. Thresholds, SLOs, compare tolerances,
 * CSV columns, HTML labels and the profile JSON Schema all derive their lists from here (k6 keeps its
 * built-in metrics in one file the same way).
 */

/** What a metric is measured in, as reports print it. */
export type MetricUnit = 'ms' | 'tokens' | 'tokens/s' | '/s' | '';

/**
 * Whether a smaller or a larger value is better: what a regression means for it in `compare`. Token
 * counts say `lower` as a convention (more output or cache is not a regression of the server's speed);
 * they are compared only when a tolerance names them.
 */
export type MetricDirection = 'lower' | 'higher';

/** A per-request metric of summary.json: one HDR histogram per group, summarised as MetricStats. */
interface MetricDefinitionInput {
  readonly name: string;
  /** '' for a dimensionless fraction (fluidity_index). */
  readonly unit: Exclude<MetricUnit, '/s'>;
  /**
   * Recorded value per reported unit: 1000 for *_ms (recorded in integer µs) and decode_tps (tokens/s
   * x 1000, three decimals kept; fluidity_index the same), 1 for token counts. Per-request values (request-values.ts) are in the
   * recorded unit, so a value goes into its histogram as it is and is divided by this for reports.
   */
  readonly scale: 1 | 1000;
  readonly direction: MetricDirection;
  /** Whether it is a time of the request (latency tables) or a count or rate (value tables). */
  readonly kind: 'latency' | 'value';
  readonly label: string;
  /** For axis labels and legends. */
  readonly short: string;
  /** The requests.csv column with the request's own value, or null (itl_ms has many per request). */
  readonly csvColumn: string | null;
}

export const METRIC_DEFINITIONS = [
  {
    name: 'ttfb_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Time to first byte',
    short: 'TTFB',
    csvColumn: 'ttfb_ms',
  },
  {
    name: 'ttft_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Time to first token (TTFT)',
    short: 'TTFT',
    csvColumn: 'ttft_ms',
  },
  {
    name: 'ttfo_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Time to first output token',
    short: 'TTFO',
    csvColumn: 'ttfo_ms',
  },
  {
    name: 'itl_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Inter-token latency (ITL)',
    short: 'ITL',
    csvColumn: null,
  },
  {
    name: 'tpot_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Time per output token (TPOT)',
    short: 'TPOT',
    csvColumn: 'tpot_ms',
  },
  {
    name: 'e2e_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'End-to-end latency',
    short: 'E2E',
    csvColumn: 'e2e_ms',
  },
  {
    name: 'queue_time_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Server queue time',
    short: 'queue time',
    csvColumn: 'queue_time_ms',
  },
  {
    name: 'prompt_time_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Server prompt time',
    short: 'prompt time',
    csvColumn: 'prompt_time_ms',
  },
  {
    name: 'completion_time_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Server completion time',
    short: 'completion time',
    csvColumn: 'completion_time_ms',
  },
  {
    name: 'total_time_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Server total time',
    short: 'total time',
    csvColumn: 'total_time_ms',
  },
  {
    name: 'client_overhead_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Client overhead (e2e - total_time)',
    short: 'client overhead',
    csvColumn: 'client_overhead_ms',
  },
  {
    name: 'schedule_lag_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'Schedule lag',
    short: 'schedule lag',
    csvColumn: 'schedule_lag_ms',
  },
  {
    name: 'connect_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'TCP connect (new connections)',
    short: 'connect',
    csvColumn: 'connect_ms',
  },
  {
    name: 'tls_handshake_ms',
    unit: 'ms',
    scale: 1000,
    direction: 'lower',
    kind: 'latency',
    label: 'TLS handshake (new connections)',
    short: 'TLS handshake',
    csvColumn: 'tls_handshake_ms',
  },
  {
    name: 'output_tokens',
    unit: 'tokens',
    scale: 1,
    direction: 'lower',
    kind: 'value',
    label: 'Output tokens',
    short: 'output tokens',
    csvColumn: 'output_tokens',
  },
  {
    name: 'input_tokens',
    unit: 'tokens',
    scale: 1,
    direction: 'lower',
    kind: 'value',
    label: 'Input tokens',
    short: 'input tokens',
    csvColumn: 'input_tokens',
  },
  {
    name: 'reasoning_tokens',
    unit: 'tokens',
    scale: 1,
    direction: 'lower',
    kind: 'value',
    label: 'Reasoning tokens',
    short: 'reasoning tokens',
    csvColumn: 'reasoning_tokens',
  },
  {
    name: 'cached_tokens',
    unit: 'tokens',
    scale: 1,
    direction: 'lower',
    kind: 'value',
    label: 'Cached tokens',
    short: 'cached tokens',
    csvColumn: 'cached_tokens',
  },
  {
    name: 'decode_tps',
    unit: 'tokens/s',
    scale: 1000,
    direction: 'higher',
    kind: 'value',
    label: 'Decode speed',
    short: 'decode speed',
    csvColumn: 'decode_tps',
  },
  {
    // etalon's deadline metric (measure/fluidity.ts), only when the profile sets `deadlines:`.
    name: 'fluidity_index',
    unit: '',
    scale: 1000,
    direction: 'higher',
    kind: 'value',
    label: 'Fluidity index (deadlines met, 0..1)',
    short: 'fluidity index',
    csvColumn: 'fluidity_index',
  },
] as const satisfies readonly MetricDefinitionInput[];

export type MetricDefinition = (typeof METRIC_DEFINITIONS)[number];
export type MetricName = MetricDefinition['name'];
export type LatencyMetric = Extract<MetricDefinition, { kind: 'latency' }>['name'];
export type ValueMetric = Extract<MetricDefinition, { kind: 'value' }>['name'];

/** Every per-request metric, in report order. */
export const METRIC_NAMES: readonly MetricName[] = METRIC_DEFINITIONS.map((metric) => metric.name);
export const LATENCY_METRICS = METRIC_DEFINITIONS.filter((metric) => metric.kind === 'latency').map(
  (metric) => metric.name,
) as readonly LatencyMetric[];
export const VALUE_METRICS = METRIC_DEFINITIONS.filter((metric) => metric.kind === 'value').map(
  (metric) => metric.name,
) as readonly ValueMetric[];

const BY_NAME: ReadonlyMap<string, MetricDefinition> = new Map(
  METRIC_DEFINITIONS.map((metric) => [metric.name, metric]),
);

/** The definition of a per-request metric, or undefined for a name that is none. */
export function metricDefinition(name: string): MetricDefinition | undefined {
  return BY_NAME.get(name);
}

export function isMetricName(name: string): name is MetricName {
  return BY_NAME.has(name);
}

/**
 * Stats of a metric's MetricStats that thresholds, SLOs and tolerances may name. p1 is the low tail that a
 * higher-is-better metric is judged on (`fluidity_index.p1 >= 0.9`: 99% of requests at 0.9 or more).
 */
export const METRIC_STATS = ['p1', 'p50', 'p90', 'p95', 'p99', 'p999', 'mean', 'min', 'max'] as const;

/** A value of a whole group, named without a stat. */
interface GroupValueDefinitionInput {
  readonly name: string;
  readonly unit: MetricUnit;
  readonly direction: MetricDirection;
  readonly label: string;
}

export const GROUP_VALUE_DEFINITIONS = [
  { name: 'error_rate', unit: '', direction: 'lower', label: 'Error rate (failed / (ok + failed))' },
  { name: 'requests_per_s', unit: '/s', direction: 'higher', label: 'Requests per second (ok)' },
  { name: 'output_tokens_per_s', unit: '/s', direction: 'higher', label: 'Output tokens per second' },
  { name: 'total_tokens_per_s', unit: '/s', direction: 'higher', label: 'Total tokens per second' },
  { name: 'goodput_per_s', unit: '/s', direction: 'higher', label: 'Goodput (requests per second meeting the SLO)' },
  // api: embeddings (absent, and a threshold on them fails, for a group whose requests carry no inputs).
  { name: 'inputs_per_s', unit: '/s', direction: 'higher', label: 'Inputs embedded per second' },
  { name: 'input_tokens_per_s', unit: '/s', direction: 'higher', label: 'Input tokens embedded per second' },
  // Answer checks (metrics/check-summary.ts): absent, and a threshold on them fails, when nothing was checked.
  { name: 'tool_arguments_pass_rate', unit: '', direction: 'higher', label: 'Tool-call arguments valid (pass rate)' },
  { name: 'json_schema_pass_rate', unit: '', direction: 'higher', label: 'JSON answers valid (pass rate)' },
] as const satisfies readonly GroupValueDefinitionInput[];

export type GroupValueName = (typeof GROUP_VALUE_DEFINITIONS)[number]['name'];
export const GROUP_VALUES: readonly GroupValueName[] = GROUP_VALUE_DEFINITIONS.map((value) => value.name);

const GROUP_VALUE_BY_NAME: ReadonlyMap<string, (typeof GROUP_VALUE_DEFINITIONS)[number]> = new Map(
  GROUP_VALUE_DEFINITIONS.map((value) => [value.name, value]),
);

/** The unit of a per-request metric or a group value ('' when unknown). */
export function metricUnit(name: string): MetricUnit {
  return BY_NAME.get(name)?.unit ?? GROUP_VALUE_BY_NAME.get(name)?.unit ?? '';
}

/** Whether a smaller value of a metric or group value is better (unknown names: lower). */
export function lowerIsBetter(name: string): boolean {
  return (BY_NAME.get(name)?.direction ?? GROUP_VALUE_BY_NAME.get(name)?.direction ?? 'lower') === 'lower';
}
