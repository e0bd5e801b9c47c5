/** `inferbench report <run-dir>` rebuilds report.html, summary.csv and timeseries.csv from saved results. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { makeRunDir } from '../fixtures/make-run.js';
import type { FixtureRun } from '../fixtures/make-run.js';
import { parseCsvRecords } from '../../src/util/csv-records.js';

let root: string;
let run: FixtureRun;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'inferbench-report-cli-'));
  run = makeRunDir(join(root, 'run'), { seed: 9 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('inferbench report', () => {
  it('writes the three files from summary.json and timeseries.csv', async () => {
    const r = await runCliInProcess(['report', run.dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`rebuilt the report of run ${run.summary.run_id} (4 group(s), 40 time-series rows)`);
    const html = readFileSync(join(run.dir, 'report.html'), 'utf8');
    expect(html).toContain(run.summary.run_id);
    expect(html).toContain('"id":"dist-ttft_ms"');
    const summaryCsv = parseCsvRecords(readFileSync(join(run.dir, 'summary.csv'), 'utf8')).records;
    const ttft = summaryCsv.find((row) => row['group'] === 'steady/model-a/priority' && row['metric'] === 'ttft_ms')!;
    expect(Number(ttft['p50'])).toBeCloseTo(run.summary.groups[0]!.metrics.ttft_ms!.p50, 2);
    const ts = parseCsvRecords(readFileSync(join(run.dir, 'timeseries.csv'), 'utf8')).records;
    expect(ts).toHaveLength(run.timeSeries.length);
    expect(Number(ts[3]!['completed'])).toBe(run.timeSeries[3]!.completed);
  });

  it('--out writes elsewhere, --json lists the paths', async () => {
    const out = join(root, 'elsewhere');
    const r = await runCliInProcess(['report', join(run.dir, 'summary.json'), '--out', out, '--json']);
    expect(r.code).toBe(0);
    const paths = JSON.parse(r.stdout) as Record<string, string>;
    expect(paths['report_html']).toBe(join(out, 'report.html'));
    for (const p of Object.values(paths)) expect(existsSync(p)).toBe(true);
  });

  it('a directory without results exits 2', async () => {
    const r = await runCliInProcess(['report', join(root, 'empty')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/No run results/);
  });
});
