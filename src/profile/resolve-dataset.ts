/**
 * Resolves `prompt.dataset` as written into a DatasetSpec: the path made absolute (relative to the
 * profile), and every default applied in one place.
 */
import { resolve } from 'node:path';
import type { z } from 'zod';
import type { datasetSchema } from './dataset-schema.js';
import type { DatasetSpec } from './resolved-profile.js';

/** The default `field` of an openai-format object line. */
export const DEFAULT_DATASET_FIELD = 'prompt';

export function resolveDataset(dataset: z.infer<typeof datasetSchema>, baseDir: string): DatasetSpec {
  return {
    path: resolve(baseDir, dataset.path),
    field: dataset.field ?? DEFAULT_DATASET_FIELD,
    format: dataset.format ?? 'auto',
    outputTokens: dataset.output_tokens ?? 'prompt',
    minInputTokens: dataset.min_input_tokens ?? null,
    maxInputTokens: dataset.max_input_tokens ?? null,
    minOutputTokens: dataset.min_output_tokens ?? null,
    maxOutputTokens: dataset.max_output_tokens ?? null,
    sample: dataset.sample ?? 'cycle',
    limit: dataset.limit ?? null,
  };
}
