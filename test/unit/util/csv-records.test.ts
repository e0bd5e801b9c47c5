/**
 * The one CSV reader (util/csv-records.ts, csv-parse) on what csv-stringify writes and a spreadsheet may
 * save: quoted fields with commas, newlines and doubled quotes inside, CRLF, a byte-order mark, blank
 * lines, short rows, a header alone. Round trips through csv-stringify keep every cell exactly.
 */
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { parseCsvRecords } from '../../../src/util/csv-records.js';

describe('parseCsvRecords', () => {
  it('reads quoted fields with commas, newlines and doubled quotes inside, keyed by the header', () => {
    const text = 'id,text,model\n1,"a, b",m\n2,"line one\nline two","say ""hi"""\n';
    expect(parseCsvRecords(text)).toEqual({
      columns: ['id', 'text', 'model'],
      records: [
        { id: '1', text: 'a, b', model: 'm' },
        { id: '2', text: 'line one\nline two', model: 'say "hi"' },
      ],
    });
  });

  it('reads CRLF line ends, a byte-order mark and blank lines; a newline inside quotes stays CRLF', () => {
    const text = '\ufeffgroup,n\r\n\r\n"g,1","x\r\ny"\r\ng2,3\r\n';
    const { columns, records } = parseCsvRecords(text);
    expect(columns).toEqual(['group', 'n']);
    expect(records).toEqual([
      { group: 'g,1', n: 'x\r\ny' },
      { group: 'g2', n: '3' },
    ]);
  });

  it("gives a short row's missing cells as '' and a header alone as no records", () => {
    expect(parseCsvRecords('a,b,c\n1\n').records).toEqual([{ a: '1', b: '', c: '' }]);
    expect(parseCsvRecords('a,b\n')).toEqual({ columns: ['a', 'b'], records: [] });
    expect(parseCsvRecords('')).toEqual({ columns: [], records: [] });
  });

  it('reads back exactly what csv-stringify wrote, hostile cells included', () => {
    const cells = ['plain', 'comma, inside', 'quote " inside', 'new\nline', ' spaced ', '', '"', 'crlf\r\nend'];
    const rows = cells.map((cell, i) => [String(i), cell]);
    const { records } = parseCsvRecords(stringify([['i', 'cell'], ...rows]));
    expect(records.map((record) => record['cell'])).toEqual(cells);
  });
});
