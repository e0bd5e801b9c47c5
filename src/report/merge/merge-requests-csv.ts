/**
 * requests.csv of a merged run: the shards' rows one after the other (in the order of the shards'
 * starts), in the columns of requests-csv.ts. Ids are re-numbered from 0 so they stay unique (the
 * `request_id` sent to the server is kept as it was), and start_ms is moved onto the merged run's clock
 * (the shard's start - the earliest start + start_ms). A shard without requests.csv adds no rows.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { parseCsvRecords } from '../compare/parse-csv.js';
import { REQUEST_COLUMNS } from '../requests-csv.js';
import { LABELS_COLUMN } from '../request-labels-cell.js';
import { CHECKS_COLUMN } from '../request-checks-cell.js';

export const REQUESTS_CSV = 'requests.csv';

/** One shard's folder and how far its start lies after the earliest start, ms. */
export interface ShardRequests {
  readonly dir: string;
  readonly offsetMs: number;
}

export interface MergedRequests {
  /** Path written. */
  readonly path: string;
  readonly rows: number;
  /** Shard folders that had no requests.csv. */
  readonly missing: string[];
}

function rebased(cell: string | undefined, offsetMs: number): string {
  if (cell === undefined || cell === '') return '';
  const value = Number(cell);
  return Number.isFinite(value) ? String(Math.round((value + offsetMs) * 1000) / 1000) : cell;
}

/** Writes `<outDir>/requests.csv` from the shards' files. */
export async function mergeRequestsCsv(outDir: string, shards: readonly ShardRequests[]): Promise<MergedRequests> {
  const rows: string[][] = [];
  const missing: string[] = [];
  // The `labels` column (last) when some shard's file has it.
  const labels: string[] = [];
  // The `checks_failed` column (after labels) when some shard's file has it, even with every cell empty.
  const checks: string[] = [];
  let withChecks = false;
  for (const shard of shards) {
    const path = join(shard.dir, REQUESTS_CSV);
    if (!existsSync(path)) {
      missing.push(shard.dir);
      continue;
    }
    const { columns: shardColumns, records } = parseCsvRecords(await readFile(path, 'utf8'));
    if (shardColumns.includes(CHECKS_COLUMN)) withChecks = true;
    for (const record of records) {
      rows.push(
        REQUEST_COLUMNS.map((column) => {
          if (column === 'id') return String(rows.length);
          if (column === 'start_ms') return rebased(record[column], shard.offsetMs);
          return record[column] ?? '';
        }),
      );
      labels.push(record[LABELS_COLUMN] ?? '');
      checks.push(record[CHECKS_COLUMN] ?? '');
    }
  }
  const withLabels = labels.some((cell) => cell !== '');
  if (withLabels) for (const [i, row] of rows.entries()) row.push(labels[i] ?? '');
  const columns = withLabels ? [...REQUEST_COLUMNS, LABELS_COLUMN] : [...REQUEST_COLUMNS];
  if (withChecks) {
    for (const [i, row] of rows.entries()) row.push(checks[i] ?? '');
    columns.push(CHECKS_COLUMN);
  }
  const path = join(outDir, REQUESTS_CSV);
  await writeFile(path, stringify(rows, { header: true, columns }), 'utf8');
  return { path, rows: rows.length, missing };
}
