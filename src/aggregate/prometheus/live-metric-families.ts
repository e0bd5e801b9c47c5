/**
 * Every metric family the live exporter serves, declared once (name, type, HELP and how its values are
 * read from the numbers), in Prometheus' conventions: `inferbench_` prefix, base units (`_seconds`),
 * counters ending in `_total`. The exporter registers them; the Grafana dashboard's test reads the names.
 */
import type { LiveGroups } from '../early-stop.js';
import type { LiveGroup } from '../live-thresholds.js';
import { ERROR_CLASSES } from '../../protocol/error-classes.js';
import type { ServerLatest } from '../server-metrics/server-latest.js';
import type { LabelledHistogram, LiveGroupSeries, LiveLabels } from './live-group-series.js';
import { SERVER_LIVE_FAMILIES, type ServerEndpointLabels } from './live-server-families.js';

/**
 * One sample as prom-client's registry formats it (metricName: a histogram's `_bucket`/`_sum`/`_count`).
 * The labels go in `sharedLabels`, which prom-client renders once per label object (a WeakMap cache) rather
 * than on every scrape: the label objects live as long as their group, so a scrape formats only numbers.
 */
export interface LiveValue {
  readonly metricName?: string;
  readonly sharedLabels: LiveLabels;
  readonly value: number;
}

/** The run's own figures (one series each, labelled with the shard only). */
export interface LiveRunFigures {
  readonly labels: LiveLabels;
  /** run_info's labels: profile, inferbench version, shard. */
  readonly infoLabels: LiveLabels;
  inFlight: number;
  dropped: number;
  /** Event-loop delay of the harness's main thread over the last second; NaN before the first tick. */
  eventLoopDelayP99S: number;
  eventLoopDelayMaxS: number;
  /** 1 once the run has ended and its results are written. */
  ended: number;
  /** target.server_metrics: each endpoint at its latest scrape, as of the last tick; null: not scraped. */
  server: ServerLatest | null;
  readonly serverLabels: ServerEndpointLabels;
}

export interface LiveState {
  /** The groups seen so far, in the order they were first seen. */
  readonly groups: readonly LiveGroupSeries[];
  readonly run: LiveRunFigures;
  /** The run collector's numbers of a group (its counts, read in place); undefined before the run has one. */
  readonly numbers: LiveGroups;
}

export type LiveMetricType = 'counter' | 'gauge' | 'histogram';

export interface LiveFamilySpec {
  readonly name: string;
  readonly type: LiveMetricType;
  readonly help: string;
  readonly values: (state: LiveState) => LiveValue[];
}

function histogramValues(
  name: string,
  groups: readonly LiveGroupSeries[],
  pick: (g: LiveGroupSeries) => LabelledHistogram,
) {
  const values: LiveValue[] = [];
  for (const group of groups) {
    const { histogram, bucketLabels } = pick(group);
    const cumulative = histogram.cumulativeCounts();
    for (let i = 0; i < cumulative.length; i++)
      values.push({
        metricName: `${name}_bucket`,
        sharedLabels: bucketLabels[i] as LiveLabels,
        value: cumulative[i] as number,
      });
    values.push({ metricName: `${name}_sum`, sharedLabels: group.labels, value: histogram.sumSeconds });
    values.push({ metricName: `${name}_count`, sharedLabels: group.labels, value: histogram.count });
  }
  return values;
}

function perGroup(groups: readonly LiveGroupSeries[], read: (g: LiveGroupSeries) => number): LiveValue[] {
  const values: LiveValue[] = [];
  for (const group of groups) {
    const value = read(group);
    // A gauge the target never reported (no rate-limit headers) is absent rather than a made-up number.
    if (!Number.isNaN(value)) values.push({ sharedLabels: group.labels, value });
  }
  return values;
}

/** The collector's count `read` of each group seen (0 before the collector has the group). */
function perGroupCount(state: LiveState, read: (numbers: LiveGroup) => number): LiveValue[] {
  return state.groups.map((g) => {
    const numbers = state.numbers(g.index);
    return { sharedLabels: g.labels, value: numbers === undefined ? 0 : read(numbers) };
  });
}

/** Requests by outcome (OUTCOMES order), as the collector classified them. */
const OUTCOME_COUNTS: readonly ((numbers: LiveGroup) => number)[] = [(n) => n.ok, (n) => n.failed, (n) => n.throttled];

function runValue(read: (run: LiveRunFigures) => number): (state: LiveState) => LiveValue[] {
  return ({ run }) => {
    const value = read(run);
    return Number.isNaN(value) ? [] : [{ sharedLabels: run.labels, value }];
  };
}

function histogram(name: string, help: string, pick: (g: LiveGroupSeries) => LabelledHistogram): LiveFamilySpec {
  return { name, type: 'histogram', help, values: ({ groups }) => histogramValues(name, groups, pick) };
}

const GROUP_LABELS_HELP = 'labels scenario, model, tier, group (the group key), shard';

export const LIVE_FAMILIES: readonly LiveFamilySpec[] = [
  {
    name: 'inferbench_run_info',
    type: 'gauge',
    help: 'Always 1: the profile and inferbench version of the run this process measures.',
    values: ({ run }) => [{ sharedLabels: run.infoLabels, value: 1 }],
  },
  {
    name: 'inferbench_run_ended',
    type: 'gauge',
    help: '0 while the run goes, 1 once it has ended and its results are written (the values are final).',
    values: runValue((run) => run.ended),
  },
  {
    name: 'inferbench_requests_total',
    type: 'counter',
    help: `Measured requests that ended, by outcome (ok, failed, throttled = HTTP 429); warmup excluded; ${GROUP_LABELS_HELP}.`,
    values: ({ groups, numbers }) =>
      groups.flatMap((g) => {
        const counts = numbers(g.index);
        return g.outcomeLabels.map((sharedLabels, i) => ({
          sharedLabels,
          value: counts === undefined ? 0 : (OUTCOME_COUNTS[i] as (n: LiveGroup) => number)(counts),
        }));
      }),
  },
  {
    name: 'inferbench_request_errors_total',
    type: 'counter',
    help: 'Failed and throttled requests by error class (http_429, http_4xx, http_5xx, timeout, connect, reset, ...).',
    values: ({ groups, numbers }) =>
      groups.flatMap((g) => {
        const errors = numbers(g.index)?.errors;
        return g.errorLabels.map((sharedLabels, i) => ({
          sharedLabels,
          value: errors?.[ERROR_CLASSES[i] as string] ?? 0,
        }));
      }),
  },
  {
    name: 'inferbench_input_tokens_total',
    type: 'counter',
    help: 'Prompt tokens of ok requests (usage, or the client tokenizer when the server sends none).',
    values: (state) => perGroupCount(state, (n) => n.inputTokens),
  },
  {
    name: 'inferbench_output_tokens_total',
    type: 'counter',
    help: 'Generated tokens of ok requests (usage, or the client tokenizer when the server sends none).',
    values: (state) => perGroupCount(state, (n) => n.outputTokens),
  },
  histogram('inferbench_ttft_seconds', 'Time to first token of ok requests, from the intended start.', (g) => g.ttft),
  histogram(
    'inferbench_itl_seconds',
    'Inter-token latency: every gap between chunks carrying generated text, of ok requests.',
    (g) => g.itl,
  ),
  histogram('inferbench_e2e_seconds', 'End-to-end latency of ok requests, from the intended start.', (g) => g.e2e),
  histogram(
    'inferbench_schedule_lag_seconds',
    "The harness's own lateness: actual send minus intended start, of every request sent.",
    (g) => g.scheduleLag,
  ),
  {
    name: 'inferbench_ratelimit_remaining_requests',
    type: 'gauge',
    help: 'x-ratelimit-remaining-requests-minute of the last response that had it (absent: never sent).',
    values: ({ groups }) => perGroup(groups, (g) => g.rateLimitRemainingRequests),
  },
  {
    name: 'inferbench_ratelimit_remaining_tokens',
    type: 'gauge',
    help: 'x-ratelimit-remaining-tokens-minute of the last response that had it (absent: never sent).',
    values: ({ groups }) => perGroup(groups, (g) => g.rateLimitRemainingTokens),
  },
  {
    name: 'inferbench_in_flight_requests',
    type: 'gauge',
    help: 'Requests sent and not yet ended (this process, all groups).',
    values: runValue((run) => run.inFlight),
  },
  {
    name: 'inferbench_dropped_requests_total',
    type: 'counter',
    help: 'Open-loop arrivals not sent because max_concurrency was reached (this process, all groups).',
    values: runValue((run) => run.dropped),
  },
  {
    name: 'inferbench_event_loop_delay_p99_seconds',
    type: 'gauge',
    help: "p99 event-loop delay of the harness's main thread over the last second (high: the client is the bottleneck).",
    values: runValue((run) => run.eventLoopDelayP99S),
  },
  {
    name: 'inferbench_event_loop_delay_max_seconds',
    type: 'gauge',
    help: "Largest event-loop delay of the harness's main thread over the last second.",
    values: runValue((run) => run.eventLoopDelayMaxS),
  },
  ...SERVER_LIVE_FAMILIES,
];

/** Every series name the exporter can serve (a histogram's _bucket, _sum and _count included). */
export const LIVE_SERIES_NAMES: readonly string[] = LIVE_FAMILIES.flatMap((family) =>
  family.type === 'histogram' ? [`${family.name}_bucket`, `${family.name}_sum`, `${family.name}_count`] : [family.name],
);
