/**
 * The profile's `prompt.dataset:` section: which file (OpenAI-style JSONL or ShareGPT), how its entries are
 * filtered by token length, and how requests sample them. Its schema, the rules a per-field schema cannot
 * express (min <= max for the token filters, answer-length filters only where the answer length comes from
 * the dataset), its defaults and resolution (the path made absolute, relative to the profile), and its
 * `validate` line. What depends on the file's content (how many entries a filter keeps) is checked when
 * the workload is built.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { IssuePath, ProfileIssue } from '../profile-issue.js';
import type { DatasetSpec } from '../resolved-profile.js';

const tokens = z.number().int().min(0);

export const DATASET_FORMATS = ['auto', 'openai', 'sharegpt'] as const;
export const DATASET_SAMPLES = ['cycle', 'with_replacement', 'without_replacement'] as const;

export const datasetSchema = z
  .strictObject({
    path: z.string().min(1).meta({ description: 'JSONL file or JSON array file (ShareGPT), relative to the profile.' }),
    field: z.string().min(1).optional().meta({
      description: 'openai format: the field holding the prompt text or messages (default "prompt").',
    }),
    format: z.enum(DATASET_FORMATS).optional().meta({
      description:
        'auto (default): detected per file (an error when records of both formats are mixed); openai: a messages array or an object with `field` per line; sharegpt: {"conversations": [{"from": "human"|"gpt"|"system", "value": ...}]} records.',
    }),
    output_tokens: z.enum(['dataset', 'prompt']).optional().meta({
      description:
        "dataset: max_completion_tokens is each entry's own answer length (tokens of its first assistant turn; entries without one are filtered out); prompt (default): prompt.output_tokens as for synthetic prompts.",
    }),
    min_input_tokens: tokens.optional().meta({ description: 'Drop entries whose prompt as sent has fewer tokens.' }),
    max_input_tokens: tokens.optional().meta({ description: 'Drop entries whose prompt as sent has more tokens.' }),
    min_output_tokens: tokens
      .optional()
      .meta({ description: 'With output_tokens: dataset, drop entries whose answer has fewer tokens.' }),
    max_output_tokens: tokens
      .optional()
      .meta({ description: 'With output_tokens: dataset, drop entries whose answer has more tokens.' }),
    sample: z.enum(DATASET_SAMPLES).optional().meta({
      description:
        'cycle (default): a seeded order, repeated; with_replacement: a seeded draw per request; without_replacement: each entry at most once (an error when `requests` asks more; a duration-bound run cycles again with a warning).',
    }),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'Keep only the first N entries left after filtering.' }),
  })
  .meta({ id: 'dataset', description: 'Prompts from a dataset file instead of synthetic text.' });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `dataset` as merged for one scenario (or a mix class over it, `inMix`); `pathOf(key)` is the path of one of
 * its fields as written. The file must exist; sampling without replacement does not hold in a mix.
 */
export function checkDataset(
  dataset: unknown,
  pathOf: (key: string) => IssuePath,
  context: { readonly baseDir: string; readonly inMix: boolean },
): ProfileIssue[] {
  if (!isRecord(dataset)) return [];
  const issues: ProfileIssue[] = [];
  if (typeof dataset.path === 'string' && !existsSync(resolve(context.baseDir, dataset.path)))
    issues.push({ path: pathOf('path'), message: `file not found: ${resolve(context.baseDir, dataset.path)}` });
  for (const kind of ['input', 'output']) {
    const min = dataset[`min_${kind}_tokens`];
    const max = dataset[`max_${kind}_tokens`];
    if (typeof min === 'number' && typeof max === 'number' && min > max)
      issues.push({
        path: pathOf(`min_${kind}_tokens`),
        message: `min_${kind}_tokens (${min}) is greater than max_${kind}_tokens (${max})`,
      });
  }
  if (dataset.output_tokens !== 'dataset') {
    for (const key of ['min_output_tokens', 'max_output_tokens'])
      if (dataset[key] !== undefined)
        issues.push({
          path: pathOf(key),
          atKey: true,
          message: `${key} filters by the answer length of each entry: it needs output_tokens: dataset`,
        });
  }
  if (context.inMix && dataset.sample === 'without_replacement')
    issues.push({
      path: pathOf('sample'),
      message:
        'without_replacement does not hold in a mix (entries are drawn by the schedule-wide request index, which the classes share); use cycle or with_replacement, or a scenario of its own',
    });
  return issues;
}

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

/** The plan's line for `prompt.dataset` (validate): the file, its format, filters, limit and sampling. */
export function formatDataset(d: DatasetSpec): string {
  const format =
    d.format === 'sharegpt'
      ? 'sharegpt'
      : d.format === 'openai'
        ? `openai, field "${d.field}"`
        : `format auto, field "${d.field}"`;
  const parts = [`dataset ${d.path} (${format})`];
  const bounds = (what: string, min: number | null, max: number | null): void => {
    if (min !== null || max !== null) parts.push(`${what} tokens ${min ?? 0}..${max ?? 'any'}`);
  };
  bounds('input', d.minInputTokens, d.maxInputTokens);
  if (d.outputTokens === 'dataset') parts.push('output tokens from the dataset');
  bounds('answer', d.minOutputTokens, d.maxOutputTokens);
  if (d.limit !== null) parts.push(`first ${d.limit} kept`);
  parts.push(`sample ${d.sample}`);
  return parts.join(', ');
}
