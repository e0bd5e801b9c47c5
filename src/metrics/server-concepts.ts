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
