/**
 * Resolves `prompt.dataset` as written into a DatasetSpec: the path made absolute (relative to the
 * profile), and every default applied in one place.
 */
import { resolve } from 'node:path';
import type { z } from 'zod';
import type { datasetSchema } from './sections/dataset.js';
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

export function resolveDataset(dataset: z.infer<typeof datasetSchema>, baseDir: string): DatasetSpec {
  const d = DATASET_DEFAULTS;
  return {
    path: resolve(baseDir, dataset.path),
    field: dataset.field ?? DEFAULT_DATASET_FIELD,
    format: dataset.format ?? d.format,
    outputTokens: dataset.output_tokens ?? d.outputTokens,
    minInputTokens: dataset.min_input_tokens ?? d.minInputTokens,
    maxInputTokens: dataset.max_input_tokens ?? d.maxInputTokens,
    minOutputTokens: dataset.min_output_tokens ?? d.minOutputTokens,
    maxOutputTokens: dataset.max_output_tokens ?? d.maxOutputTokens,
    sample: dataset.sample ?? d.sample,
    limit: dataset.limit ?? d.limit,
  };
}
