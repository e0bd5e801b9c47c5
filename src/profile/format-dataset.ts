/** The plan's line for `prompt.dataset` (validate): the file, its format, filters, limit and sampling. */
import type { DatasetSpec } from './resolved-profile.js';

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
