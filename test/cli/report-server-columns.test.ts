/**
 * `inferbench report <run-dir>` rebuilds a run's files from its saved results: a timeseries.csv with the
 * server's columns (target.server_metrics, `server_*`) is written back with them, values unchanged. It was
 * read back without them, so rebuilding a report in place deleted the server's per-second view.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatTimeSeriesCsv } from '../../src/report/timeseries-csv.js';
import { fixtureServerSide, makeRunDir } from '../fixtures/make-run.js';
import { runCliInProcess } from '../helpers/cli.js';

const root = mkdtempSync(join(tmpdir(), 'inferbench-report-server-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('report <run-dir> with server columns', () => {
  it('writes timeseries.csv back with its server_* columns, unchanged', async () => {
    const server = fixtureServerSide({
      running: 4,
      waiting: 3,
      kvCacheMax: 0.61,
      preemptions: 0,
      prefixHitRatio: 0.5,
      ttftP99Ms: 420,
    });
    const run = makeRunDir(join(root, 'run'), { models: ['m'], tiers: [null], server });
    const points = run.timeSeries.map((p) => ({
      ...p,
      server: {
        server_running: 4,
        server_running_max: 4,
        server_waiting: p.second,
        server_kv_cache_usage: p.second === 3 ? null : 0.125 * p.second,
        server_ttft_p99_ms: 612.5,
      },
    }));
    const csv = formatTimeSeriesCsv(points);
    expect(csv.split('\n')[0]).toContain(',server_running,server_running_max,server_waiting,server_kv_cache_usage,');
    writeFileSync(join(run.dir, 'timeseries.csv'), csv);
    const result = await runCliInProcess(['report', run.dir, '--quiet']);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(run.dir, 'timeseries.csv'), 'utf8')).toBe(csv);
  });
});
