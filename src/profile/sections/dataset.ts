/**
 * The profile's `prompt.dataset:` block, as written: which file (OpenAI-style JSONL or ShareGPT), how its
 * entries are filtered by token length, and how requests sample them. Defaults are applied in
 * resolve-profile.ts (resolveDataset), never here.
 */
import { z } from 'zod';

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
