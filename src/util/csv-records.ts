/**
 * The one CSV reader of the files inferbench writes (requests.csv, timeseries.csv, summary.csv, all by
 * csv-stringify), as compare, merge and report read them back: csv-parse (RFC 4180: quoted fields, ""
 * escapes, commas and newlines inside quotes, CRLF, a byte-order mark). Returns records keyed by the header
 * row, so readers pick columns by name and survive added columns; a short row's missing cells are ''.
 */
import { parse } from 'csv-parse/sync';

export interface CsvRecords {
  /** The header row. */
  readonly columns: string[];
  /** One record per data row: column -> cell ('' where the row is short). */
  readonly records: Record<string, string>[];
}

/** Parses CSV text with a header row into records keyed by column name; blank lines are skipped. */
export function parseCsvRecords(text: string): CsvRecords {
  const rows = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
  const columns = rows[0] ?? [];
  const records = rows.slice(1).map((cells) => {
    const record: Record<string, string> = {};
    for (let index = 0; index < columns.length; index++) record[columns[index] as string] = cells[index] ?? '';
    return record;
  });
  return { columns, records };
}
