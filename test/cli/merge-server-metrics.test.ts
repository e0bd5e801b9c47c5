/**
 * `inferbench merge` keeps the server side of a sharded run, on real runs: shard 1/2 scraped the
 * emulator's GET /metrics (`--server-metrics /metrics`), shard 2/2 did not (only shard 1 scrapes), both
 * against one emulator in this process at once. The merged summary.json has shard 1's `server_metrics` and
 * each group's `server` as shard 1 wrote them (never added over shards), and the merged timeseries.csv has
 * shard 1's `server_*` columns, moved onto the merged clock as its client columns are.
 * Slow on purpose (runs of seconds, scraped once a second): not in test:fast.
 * @module-tag slow
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCsvRecords } from '../../src/util/csv-records.js';
import { runCliInProcess } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-merge-server-');
const emulators = useInProcessEmulators();

const PROFILE = `name: merge-server
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
scenarios:
  - name: s
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 8 }
    duration: 3s
    prompt: { input_tokens: 32, output_tokens: 40 }
    request: { max_completion_tokens: 40 }
    seed: 5
`;

function timeseries(dir: string): { columns: string[]; rows: Record<string, string>[] } {
  const parsed = parseCsvRecords(readFileSync(join(dir, 'timeseries.csv'), 'utf8'));
  return { columns: parsed.columns, rows: parsed.records };
}

const shardDirs = [1, 2].map((i) => `shard-${i}`);
let merged = '';
let mergeStderr = '';

beforeAll(async () => {
  const path = folder.writeProfile('merge-server', PROFILE);
  const target = await emulators.start();
  const runs = await Promise.all(
    [1, 2].map((i) =>
      runCliInProcess(
        [
          'run',
          path,
          '--shard',
          `${i}/2`,
          ...(i === 1 ? ['--server-metrics', '/metrics'] : []),
          '--out',
          join(folder.dir, `shard-${i}`),
          '--quiet',
        ],
        { cwd: folder.dir, target },
      ),
    ),
  );
  expect(
    runs.map((r) => r.code),
    runs.map((r) => r.stderr).join('\n'),
  ).toEqual([0, 0]);
  merged = join(folder.dir, 'merged');
  // Shard 2 first on the command line: the kept side is shard 1's by its index, not by the order given.
  const result = await runCliInProcess(
    ['merge', join(folder.dir, 'shard-2'), join(folder.dir, 'shard-1'), '--out', merged, '--quiet'],
    { cwd: folder.dir },
  );
  expect(result.code, result.stderr).toBe(0);
  mergeStderr = result.stderr;
}, 120_000);

describe('merge of shards where shard 1 scraped the server', () => {
  it("summary.json keeps shard 1's server_metrics and each group's server, exactly", () => {
    const [one, two] = shardDirs.map((d) => readSummary(join(folder.dir, d)));
    const all = readSummary(merged);
    expect(two?.server_metrics).toBeUndefined();
    expect(two?.groups[0]?.server).toBeUndefined();
    expect(one?.server_metrics?.[0]).toMatchObject({ engine: 'vllm', failures: 0 });
    expect(one?.server_metrics?.[0]?.scrapes_ok).toBeGreaterThanOrEqual(3);
    expect(all.server_metrics).toEqual(one?.server_metrics);
    const server = one?.groups[0]?.server;
    expect(server?.measured?.concepts['waiting']).toMatchObject({ kind: 'gauge' });
    expect(all.groups[0]?.server).toEqual(server);
    // The client side did merge: both shards' requests.
    expect(all.groups[0]?.requests.ok).toBe((one?.groups[0]?.requests.ok ?? 0) + (two?.groups[0]?.requests.ok ?? 0));
    expect(mergeStderr).not.toContain('scraped the server');
  });

  it("timeseries.csv keeps shard 1's server_* columns, moved onto the merged clock", () => {
    const [one, two] = shardDirs.map((d) => readSummary(join(folder.dir, d)));
    const shard1 = timeseries(join(folder.dir, 'shard-1'));
    const all = timeseries(merged);
    const serverColumns = shard1.columns.filter((c) => c.startsWith('server_'));
    expect(serverColumns).toEqual(expect.arrayContaining(['server_running', 'server_waiting']));
    expect(all.columns.filter((c) => c.startsWith('server_'))).toEqual(serverColumns);
    const start = (s: typeof one): number => Date.parse(s?.started_at ?? '');
    const offsetMs = start(one) - Math.min(start(one), start(two));
    let compared = 0;
    for (const row of shard1.rows) {
      const second = Math.floor((offsetMs + Number(row['second']) * 1000) / 1000);
      const mergedRow = all.rows.find((r) => r['group'] === row['group'] && Number(r['second']) === second);
      expect(mergedRow, `merged second ${second}`).toBeDefined();
      for (const column of serverColumns) expect(mergedRow?.[column], `${column}, second ${second}`).toBe(row[column]);
      if (row['server_waiting'] !== '') compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(2);
    // Seconds only shard 2 had carry no server values, never shard 2's (it has none) nor a sum.
    const shard1Seconds = new Set(shard1.rows.map((r) => Math.floor((offsetMs + Number(r['second']) * 1000) / 1000)));
    for (const row of all.rows.filter((r) => !shard1Seconds.has(Number(r['second']))))
      for (const column of serverColumns) expect(row[column]).toBe('');
  });

  it('compare of shard 1 with the merged run shows the same server values on both sides (real runs)', async () => {
    const one = readSummary(join(folder.dir, 'shard-1'));
    const result = await runCliInProcess([
      'compare',
      join(folder.dir, 'shard-1'),
      merged,
      '--json',
      '--out',
      folder.dir,
    ]);
    // The client side differs (the merged run has both shards' requests); the verdict is not this test's subject.
    expect([0, 99]).toContain(result.code);
    const server = JSON.parse(result.stdout).server as {
      baseline: { scraped: boolean };
      candidate: { scraped: boolean };
      values: { id: string; baseline: number | null; candidate: number | null; absoluteChange: number | null }[];
    };
    expect(server.baseline.scraped && server.candidate.scraped).toBe(true);
    const concepts = one.groups[0]?.server?.measured?.concepts ?? {};
    const waiting = concepts['waiting'];
    expect([concepts['running']?.kind, waiting?.kind]).toEqual(['gauge', 'gauge']);
    const running = server.values.find((v) => v.id === 'running.mean');
    expect(running?.baseline).toBe(concepts['running']?.kind === 'gauge' ? concepts['running'].mean : undefined);
    expect(server.values.find((v) => v.id === 'waiting.max')?.baseline).toBe(
      waiting?.kind === 'gauge' ? waiting.max : undefined,
    );
    expect(server.values.length).toBeGreaterThanOrEqual(5);
    for (const v of server.values) {
      expect(v.candidate, v.id).toBe(v.baseline);
      if (v.baseline !== null) expect(v.absoluteChange, v.id).toBe(0);
    }
  });
});
