/**
 * The defaults of `prompt.dataset:` (profile/sections/dataset.ts): resolution fills them in and the workload
 * hash (workload/dataset/dataset-hash.ts) leaves them out.
 */
import type { DatasetSpec } from './resolved-profile.js';

/** The default `field` of an openai-format object line. */
export const DEFAULT_DATASET_FIELD = 'prompt';

/** Every option of a dataset but its path and field, at its default (the workload hash leaves these out). */
export const DATASET_DEFAULTS: Omit<DatasetSpec, 'path' | 'field'> = {
  format: 'auto',
  outputTokens: 'prompt',
  minInputTokens: null,
  maxInputTokens: null,
  minOutputTokens: null,
  maxOutputTokens: null,
  sample: 'cycle',
  limit: null,
};
