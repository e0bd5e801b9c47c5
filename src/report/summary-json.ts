/**
 * summary.json: the run's results in the shape of run-summary.ts (schema_version 1). Written to a
 * temporary name and renamed, so a reader never sees half a file.
 */
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunSummary } from '../metrics/run-summary.js';

export const SUMMARY_JSON = 'summary.json';

export function formatSummaryJson(summary: RunSummary): string {
  return `${JSON.stringify(summary, null, 2)}\n`;
}

export async function writeSummaryJson(runDir: string, summary: RunSummary): Promise<string> {
  const path = join(runDir, SUMMARY_JSON);
  const temporary = `${path}.tmp`;
  await writeFile(temporary, formatSummaryJson(summary), 'utf8');
  await rename(temporary, path);
  return path;
}
