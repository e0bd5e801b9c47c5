/**
 * The last columns of requests.csv, as README "Outputs" documents them: `checks_failed`, then `labels`
 * (always last), both in a run's own file and in the file `merge` writes from shards, whichever of the
 * two columns each shard had.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRequestRecord } from '../../../src/client/request-record.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import type { ResolvedGroup } from '../../../src/profile/resolved-profile.js';
import { parseCsvRecords } from '../../../src/util/csv-records.js';
import { mergeRequestsCsv } from '../../../src/report/merge/merge-requests-csv.js';
import { REQUEST_COLUMNS, openRequestsCsv } from '../../../src/report/requests-csv.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-requests-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GROUP = { key: 's/m/-', scenario: 's', model: 'm', tier: null } as unknown as ResolvedGroup;

async function writeRun(name: string, options: { labels?: boolean; checks?: boolean }): Promise<string> {
  const runDir = join(dir, name);
  mkdirSync(runDir);
  const csv = await openRequestsCsv(join(runDir, 'requests.csv'), 0, options);
  const record = createRequestRecord(0, 0, 0);
  record.status = 200;
  record.labels = options.labels === true ? { turn: '2' } : null;
  record.checks =
    options.checks === true ? [{ name: 'json_schema', passed: false, message: 'content empty answer' }] : null;
  csv.write(record, GROUP, createRecordedValues());
  await csv.close();
  return runDir;
}

const header = (runDir: string): string[] =>
  parseCsvRecords(readFileSync(join(runDir, 'requests.csv'), 'utf8')).columns;

describe('requests.csv: checks_failed, then labels last', () => {
  it("a run's own file", async () => {
    const both = await writeRun('both', { labels: true, checks: true });
    expect(header(both)).toEqual([...REQUEST_COLUMNS, 'checks_failed', 'labels']);
    const row = parseCsvRecords(readFileSync(join(both, 'requests.csv'), 'utf8')).records[0];
    expect(row?.['checks_failed']).toBe('json_schema');
    expect(row?.['labels']).toBe('turn=2');
    expect(header(await writeRun('labels-only', { labels: true }))).toEqual([...REQUEST_COLUMNS, 'labels']);
    expect(header(await writeRun('checks-only', { checks: true }))).toEqual([...REQUEST_COLUMNS, 'checks_failed']);
  });

  it('the merged file, from shards with one column each', async () => {
    const a = await writeRun('shard-checks', { checks: true });
    const b = await writeRun('shard-labels', { labels: true });
    const out = join(dir, 'merged');
    mkdirSync(out);
    await mergeRequestsCsv(out, [
      { dir: a, offsetMs: 0 },
      { dir: b, offsetMs: 0 },
    ]);
    expect(header(out)).toEqual([...REQUEST_COLUMNS, 'checks_failed', 'labels']);
    const rows = parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8')).records;
    expect(rows.map((r) => [r['checks_failed'], r['labels']])).toEqual([
      ['json_schema', ''],
      ['', 'turn=2'],
    ]);
  });
});
