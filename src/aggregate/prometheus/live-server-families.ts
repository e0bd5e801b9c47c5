/**
 * The target's own metrics (target.server_metrics) as the live exporter passes them on: one family per
 * concept of metrics/server-concepts.ts, named in the exporter's conventions
 * (`inferbench_server_` prefix, base units), labelled by the endpoint they were scraped from (its URL, any
 * password hidden) and the shard. Each endpoint's value is the one of its latest scrape
 * (aggregate/server-metrics/server-latest.ts), taken at the run's last tick: a gauge as that scrape said
 * it, a counter as its rate per second since the scrape before (a gauge here: the engine's own counter is
 * on its own /metrics for Prometheus to rate()), a server histogram as its p50/p90/p99 over that interval
 * (a gauge with a `quantile` label). An endpoint with no recent scrape has no series, never a stale value.
 */
import type { ServerConcept } from '../../metrics/server-concepts.js';
import type { ConceptValue } from '../server-metrics/server-window.js';
import type { LiveLabels } from './live-group-series.js';
import type { LiveFamilySpec, LiveState, LiveValue } from './live-metric-families.js';

/** How a concept is served: its family name and HELP, and the number it takes from the concept's value. */
interface ServerFamily {
  readonly name: string;
  readonly help: string;
  /** A number (gauges, rates, ratios), or a histogram's quantiles in seconds. */
  readonly read: 'last' | 'per_s' | 'ratio' | 'quantiles_s';
}

const LATEST = 'at the latest scrape of the endpoint (label endpoint)';
const INTERVAL = 'over the interval between the latest two scrapes of the endpoint (label endpoint)';

/** Every concept's family (a concept added to SERVER_CONCEPTS without one is a compile error). */
export const SERVER_FAMILIES = {
  running: {
    name: 'inferbench_server_running_requests',
    help: `Requests the server says it is running, ${LATEST}.`,
    read: 'last',
  },
  waiting: {
    name: 'inferbench_server_waiting_requests',
    help: `Requests waiting in the server's queue, ${LATEST}.`,
    read: 'last',
  },
  kv_cache_usage: {
    name: 'inferbench_server_kv_cache_usage_ratio',
    help: `KV-cache use of the server, 0 to 1, ${LATEST}.`,
    read: 'last',
  },
  preemptions: {
    name: 'inferbench_server_preemptions_per_second',
    help: `Requests the server preempted per second, ${INTERVAL}.`,
    read: 'per_s',
  },
  prefix_cache_hit_ratio: {
    name: 'inferbench_server_prefix_cache_hit_ratio',
    help: `Prefix-cache hits over queries of the server, ${INTERVAL} (absent when nothing was queried).`,
    read: 'ratio',
  },
  prompt_tokens_per_s: {
    name: 'inferbench_server_prompt_tokens_per_second',
    help: `Prompt tokens the server processed per second, ${INTERVAL}.`,
    read: 'per_s',
  },
  generation_tokens_per_s: {
    name: 'inferbench_server_generation_tokens_per_second',
    help: `Tokens the server generated per second, ${INTERVAL}.`,
    read: 'per_s',
  },
  server_ttft: {
    name: 'inferbench_server_ttft_seconds',
    help: `The server's own time to first token, quantile 0.5, 0.9 or 0.99 of its histogram ${INTERVAL}.`,
    read: 'quantiles_s',
  },
  server_queue_time: {
    name: 'inferbench_server_queue_time_seconds',
    help: `Time requests waited in the server's queue, quantile 0.5, 0.9 or 0.99 of its histogram ${INTERVAL}.`,
    read: 'quantiles_s',
  },
  server_itl: {
    name: 'inferbench_server_itl_seconds',
    help: `The server's own inter-token latency, quantile 0.5, 0.9 or 0.99 of its histogram ${INTERVAL}.`,
    read: 'quantiles_s',
  },
  gpu_util: {
    name: 'inferbench_server_gpu_utilization_ratio',
    help: `GPU utilisation, 0 to 1 (the mean over GPUs), ${LATEST}.`,
    read: 'last',
  },
  gpu_memory_used: {
    name: 'inferbench_server_gpu_memory_used_bytes',
    help: `GPU memory in use (summed over GPUs), ${LATEST}.`,
    read: 'last',
  },
  power_w: {
    name: 'inferbench_server_power_watts',
    help: `GPU power draw (summed over GPUs), ${LATEST}.`,
    read: 'last',
  },
  energy_j: {
    name: 'inferbench_server_energy_joules_per_second',
    help: `GPU energy consumed per second (the mean power from the energy counter), ${INTERVAL}.`,
    read: 'per_s',
  },
} as const satisfies Readonly<Record<ServerConcept, ServerFamily>>;

const QUANTILES = [
  ['0.5', 'p50'],
  ['0.9', 'p90'],
  ['0.99', 'p99'],
] as const;

type EndpointLabelSets = { base: LiveLabels; quantiles: readonly LiveLabels[]; outcomes: readonly LiveLabels[] };

/**
 * The label objects of each endpoint, made once (prom-client caches the text of a label object: see
 * LiveValue); the exporter keeps one for its run.
 */
export class ServerEndpointLabels {
  readonly #shard: string;
  readonly #made = new Map<string, EndpointLabelSets>();

  constructor(shard: string) {
    this.#shard = shard;
  }

  of(endpoint: string): EndpointLabelSets {
    let labels = this.#made.get(endpoint);
    if (labels === undefined) {
      const base = { endpoint, shard: this.#shard };
      labels = {
        base,
        quantiles: QUANTILES.map(([quantile]) => ({ ...base, quantile })),
        outcomes: ['ok', 'failed'].map((outcome) => ({ ...base, outcome })),
      };
      this.#made.set(endpoint, labels);
    }
    return labels;
  }
}

function conceptValues(family: ServerFamily, value: ConceptValue, labels: EndpointLabelSets): LiveValue[] {
  const one = (x: number | null): LiveValue[] =>
    x === null || !Number.isFinite(x) ? [] : [{ sharedLabels: labels.base, value: x }];
  if (family.read === 'last') return value.kind === 'gauge' ? one(value.last) : [];
  if (family.read === 'per_s') return value.kind === 'counter' ? one(value.perS) : [];
  if (family.read === 'ratio') return value.kind === 'ratio' ? one(value.value) : [];
  if (value.kind !== 'histogram') return [];
  const out: LiveValue[] = [];
  QUANTILES.forEach(([, key], i) => {
    const ms = value[key];
    if (ms !== null && Number.isFinite(ms))
      out.push({ sharedLabels: labels.quantiles[i] as LiveLabels, value: ms / 1000 });
  });
  return out;
}

/** The server's families (see the file's comment), reading the run's latest endpoints at scrape time. */
export const SERVER_LIVE_FAMILIES: readonly LiveFamilySpec[] = [
  ...(Object.entries(SERVER_FAMILIES) as [ServerConcept, ServerFamily][]).map(
    ([concept, family]): LiveFamilySpec => ({
      name: family.name,
      type: 'gauge',
      help: family.help,
      values: ({ run }: LiveState) =>
        (run.server ?? []).flatMap((endpoint) => {
          const value = endpoint.concepts[concept];
          return value === undefined ? [] : conceptValues(family, value, run.serverLabels.of(endpoint.url));
        }),
    }),
  ),
  {
    name: 'inferbench_server_scrapes_total',
    type: 'counter',
    help: "Scrapes of the target's metrics endpoint (label endpoint) so far, by outcome (ok, failed); a failed scrape never fails the run.",
    values: ({ run }: LiveState) =>
      (run.server ?? []).flatMap((endpoint) => {
        const { outcomes } = run.serverLabels.of(endpoint.url);
        return [
          { sharedLabels: outcomes[0] as LiveLabels, value: endpoint.scrapesOk },
          { sharedLabels: outcomes[1] as LiveLabels, value: endpoint.failures },
        ];
      }),
  },
];
