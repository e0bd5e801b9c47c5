/**
 * The server's concepts (target.server_metrics): the names summary.json's `server`, timeseries.csv's
 * `server_*` columns and the capacity SLO speak, each with its unit once scaled and how it is read. The
 * engines' own names for them are client/server-metrics/engine-presets.ts; every layer that shows or
 * bounds a concept takes its unit and kind from here.
 */

/** The concepts every preset maps to (each preset has those its engine exposes). */
export const SERVER_CONCEPTS = [
  'running',
  'waiting',
  'kv_cache_usage',
  'preemptions',
  'prefix_cache_hit_ratio',
  'prompt_tokens_per_s',
  'generation_tokens_per_s',
  'server_ttft',
  'server_queue_time',
  'server_itl',
  'gpu_util',
  'gpu_memory_used',
  'power_w',
  'energy_j',
] as const;
export type ServerConcept = (typeof SERVER_CONCEPTS)[number];

/** How a concept is read over a window (the same in every preset). */
export type ServerConceptKind = 'gauge' | 'counter' | 'ratio' | 'histogram';

/** Each concept's unit once scaled (`ratio`: 0..1) and its kind. */
export const SERVER_CONCEPT_SPECS: Readonly<
  Record<ServerConcept, { readonly unit: string; readonly kind: ServerConceptKind }>
> = {
  running: { unit: 'requests', kind: 'gauge' },
  waiting: { unit: 'requests', kind: 'gauge' },
  kv_cache_usage: { unit: 'ratio', kind: 'gauge' },
  preemptions: { unit: 'preemptions', kind: 'counter' },
  prefix_cache_hit_ratio: { unit: 'ratio', kind: 'ratio' },
  prompt_tokens_per_s: { unit: 'tokens', kind: 'counter' },
  generation_tokens_per_s: { unit: 'tokens', kind: 'counter' },
  server_ttft: { unit: 'ms', kind: 'histogram' },
  server_queue_time: { unit: 'ms', kind: 'histogram' },
  server_itl: { unit: 'ms', kind: 'histogram' },
  gpu_util: { unit: 'ratio', kind: 'gauge' },
  gpu_memory_used: { unit: 'bytes', kind: 'gauge' },
  power_w: { unit: 'W', kind: 'gauge' },
  energy_j: { unit: 'J', kind: 'counter' },
};

/**
 * The statistics of a concept's window (summary.json's fields) that a capacity objective can bound from
 * above, by kind (`waiting.p99: 8`, `preemptions.max_per_s: 0`): a gauge's max, mean, last and the p99 of
 * its per-second values; a counter's increase, average rate, busiest second's rate and the p99 of its
 * per-second rates; a histogram's quantiles and mean. A ratio (a hit ratio: higher is better) has none.
 */
export const SERVER_KIND_STATS = {
  gauge: ['max', 'mean', 'last', 'p99'],
  counter: ['delta', 'per_s', 'max_per_s', 'p99_per_s'],
  ratio: [],
  histogram: ['p50', 'p90', 'p99', 'mean'],
} as const satisfies Readonly<Record<ServerConceptKind, readonly string[]>>;

/** Every statistic some kind has (SERVER_KIND_STATS's, once each). */
export const SERVER_OBJECTIVE_STATS = [
  'max',
  'mean',
  'last',
  'per_s',
  'delta',
  'max_per_s',
  'p99_per_s',
  'p50',
  'p90',
  'p99',
] as const;
export type ServerObjectiveStat = (typeof SERVER_OBJECTIVE_STATS)[number];

/**
 * What is wrong with bounding `stat` of `concept` from above (a capacity server objective), or null: a
 * statistic its kind does not have would never decide a step.
 */
export function serverStatProblem(concept: ServerConcept, stat: string): string | null {
  const { kind } = SERVER_CONCEPT_SPECS[concept];
  const stats: readonly string[] = SERVER_KIND_STATS[kind];
  if (stats.length === 0)
    return `${concept} is a ratio (hits / queries): no statistic of it is bounded from above (a server objective is an upper bound)`;
  return stats.includes(stat)
    ? null
    : `a server objective bounds one of ${stats.join(', ')} of ${concept} (a ${kind}), not "${stat}"`;
}
