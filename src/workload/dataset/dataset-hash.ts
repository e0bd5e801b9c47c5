/**
 * How a dataset enters the workload hash: its content (not its path) and every option that changes what is
 * sent. Options at their defaults are left out, so the hashes of profiles written before they existed stay
 * what they were.
 */
import { DATASET_DEFAULTS as DEFAULTS } from '../../profile/sections/dataset.js';
import type { DatasetSpec } from '../../profile/resolved-profile.js';

/** The hashed form of `dataset`, its file's content as `sha256`. */
export function hashedDataset(dataset: DatasetSpec, sha256: string): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[])
    if (dataset[key] !== DEFAULTS[key]) options[key] = dataset[key];
  return { field: dataset.field, sha256, ...options };
}
