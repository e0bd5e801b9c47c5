/**
 * A small RFC 4180 CSV reader (quoted fields, doubled quotes, CR/LF, newlines inside quotes) for the
 * files inferbench writes with csv-stringify: requests.csv and timeseries.csv. Returns objects keyed
 * by the header row, so readers pick columns by name and survive added columns.
 */

/** Parses CSV text into rows of fields. */
export function parseCsvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"') {
      quoted = true;
    } else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      row.push(field);
      field = '';
      rows.push(row);
      row = [];
      if (ch === '\r' && text[i + 1] === '\n') i++;
    } else {
      field += ch;
    }
    i++;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

/** Parses CSV text with a header row into records keyed by column name. */
export function parseCsvRecords(text: string): { columns: string[]; records: Record<string, string>[] } {
  const rows = parseCsvRows(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  const columns = rows[0] ?? [];
  const records = rows.slice(1).map((cells) => {
    const record: Record<string, string> = {};
    columns.forEach((column, index) => {
      record[column] = cells[index] ?? '';
    });
    return record;
  });
  return { columns, records };
}
