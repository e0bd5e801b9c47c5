/**
 * The rules of `prompt.dataset` a per-field schema cannot express: min <= max for the token filters, and
 * answer-length filters only where the answer length comes from the dataset. What depends on the file's
 * content (how many entries a filter keeps) is checked when the workload is built.
 */
import type { IssuePath, ProfileIssue } from './profile-issue.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `dataset` as merged for one scenario; `pathOf(key)` is the path of one of its fields as written. */
export function checkDataset(dataset: unknown, pathOf: (key: string) => IssuePath): ProfileIssue[] {
  if (!isRecord(dataset)) return [];
  const issues: ProfileIssue[] = [];
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
  return issues;
}
