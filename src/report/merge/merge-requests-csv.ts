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
import { parseCsvRecords } from '../../util/csv-records.js';
import { REQUEST_COLUMNS } from '../requests-csv.js';
import { LABELS_COLUMN } from '../request-labels-cell.js';
import { CHECKS_COLUMN } from '../request-checks-cell.js';
import { COST_COLUMN } from '../request-cost-cell.js';

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

/**
 * The optional columns after REQUEST_COLUMNS, in requests-csv.ts's order: `cost_usd` and `checks_failed`
 * when some shard's file has them (even with every cell empty), `labels` (last) when some row has a label.
 */
const TRAILING_COLUMNS: readonly { readonly name: string; readonly whenAnyCell: boolean }[] = [
  { name: COST_COLUMN, whenAnyCell: false },
  { name: CHECKS_COLUMN, whenAnyCell: false },
  { name: LABELS_COLUMN, whenAnyCell: true },
];

/** Writes `<outDir>/requests.csv` from the shards' files. */
export async function mergeRequestsCsv(outDir: string, shards: readonly ShardRequests[]): Promise<MergedRequests> {
  const rows: string[][] = [];
  const missing: string[] = [];
  const trailing = TRAILING_COLUMNS.map((column) => ({ ...column, cells: [] as string[], present: false }));
  for (const shard of shards) {
    const path = join(shard.dir, REQUESTS_CSV);
    if (!existsSync(path)) {
      missing.push(shard.dir);
      continue;
    }
    const { columns: shardColumns, records } = parseCsvRecords(await readFile(path, 'utf8'));
    for (const column of trailing) if (shardColumns.includes(column.name)) column.present = true;
    for (const record of records) {
      rows.push(
        REQUEST_COLUMNS.map((column) => {
          if (column === 'id') return String(rows.length);
          if (column === 'start_ms') return rebased(record[column], shard.offsetMs);
          return record[column] ?? '';
        }),
      );
      for (const column of trailing) column.cells.push(record[column.name] ?? '');
    }
  }
  const columns = [...REQUEST_COLUMNS];
  for (const column of trailing) {
    if (column.whenAnyCell ? !column.cells.some((cell) => cell !== '') : !column.present) continue;
    for (const [i, row] of rows.entries()) row.push(column.cells[i] ?? '');
    columns.push(column.name);
  }
  const path = join(outDir, REQUESTS_CSV);
  await writeFile(path, stringify(rows, { header: true, columns }), 'utf8');
  return { path, rows: rows.length, missing };
}
