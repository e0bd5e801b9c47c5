/**
 * `inferbench merge` on real runs against emulators in this process (real sockets, one fresh per run):
 * two runs of one profile merge into one run folder whose counts and histogram totals are the sums of
 * the two; runs of different profiles are refused (exit 2) unless --force; duplicate shard indexes are
 * refused; a threshold that fails on the merged result exits 99; two --shard runs with labels and answer
 * checks merge (in either order) to the breakdown and check counts of one unsharded run.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeHistogram } from '../../src/aggregate/histogram.js';
import type { GroupSummary, MetricName, RunSummary } from '../../src/metrics/run-summary.js';
import { parseCsvRecords } from '../../src/report/compare/parse-csv.js';
import { REQUEST_COLUMNS } from '../../src/report/requests-csv.js';
import { runCliInProcess } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-merge-');
const emulators = useInProcessEmulators();

const profile = (name: string, seed: number, thresholds = ''): string => `name: ${name}
scenarios:
  - name: steady
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 4 }
    requests: 16
    warmup_requests: 2
    prompt: { input_tokens: 32, output_tokens: 8 }
    seed: ${seed}
${thresholds}`;

async function run(profilePath: string, out: string, expectedCode = 0): Promise<string> {
  const result = await runCliInProcess(['run', profilePath, '--out', join(folder.dir, out), '--quiet'], {
    cwd: folder.dir,
    target: await emulators.start(),
  });
  expect(result.code, result.stderr).toBe(expectedCode);
  return join(folder.dir, out);
}

function requestRows(dir: string): Record<string, string>[] {
  return parseCsvRecords(readFileSync(join(dir, 'requests.csv'), 'utf8')).records;
}

let shardA = '';
let shardB = '';

beforeAll(async () => {
  const path = folder.writeProfile('merge', profile('merge-real', 7));
  shardA = await run(path, 'a');
  shardB = await run(path, 'b');
}, 120_000);

describe('merge on real runs', () => {
  it('adds the counts and histograms of two runs of one profile and writes every file', async () => {
    const out = join(folder.dir, 'merged');
    const result = await runCliInProcess(['merge', shardA, shardB, '--out', out]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/steady\/small-fast-8b\/-/);
    expect(result.stdout).toContain(`report: ${out}`);

    for (const file of ['summary.json', 'summary.csv', 'timeseries.csv', 'report.html', 'requests.csv'])
      expect(existsSync(join(out, file)), file).toBe(true);

    const a = readSummary(shardA);
    const b = readSummary(shardB);
    const merged = readSummary(out) as ReturnType<typeof readSummary> & { merged_from: string[] };
    expect(merged.merged_from.sort()).toEqual([a.run_id, b.run_id].sort());
    expect(merged.groups).toHaveLength(1);
    const onlyGroup = (summary: RunSummary): GroupSummary => {
      const group = summary.groups[0];
      if (group === undefined) throw new Error(`${summary.run_id} has no group`);
      return group;
    };
    const [ga, gb, gm] = [onlyGroup(a), onlyGroup(b), onlyGroup(merged)];
    expect(gm.requests.ok).toBe(ga.requests.ok + gb.requests.ok);
    expect(gm.requests.ok).toBe(32);
    const names = Object.keys(gm.histograms) as MetricName[];
    expect(names).toContain('ttft_ms');
    for (const metric of names) {
      const total = (encoded: string | undefined): number =>
        encoded === undefined ? 0 : decodeHistogram(encoded).totalCount;
      expect(total(gm.histograms[metric]), metric).toBe(total(ga.histograms[metric]) + total(gb.histograms[metric]));
      expect(gm.metrics[metric]?.count, metric).toBe(total(gm.histograms[metric]));
    }
    expect(Date.parse(merged.started_at)).toBe(Math.min(Date.parse(a.started_at), Date.parse(b.started_at)));
    expect(Date.parse(merged.ended_at)).toBe(Math.max(Date.parse(a.ended_at), Date.parse(b.ended_at)));
    expect(merged.complete).toBe(true);
    expect((merged.harness as unknown as { shards: unknown[] }).shards).toHaveLength(2);

    const rows = requestRows(out);
    expect(rows).toHaveLength(requestRows(shardA).length + requestRows(shardB).length);
    expect(new Set(rows.map((r) => r['id'])).size).toBe(rows.length);
    expect(new Set(rows.map((r) => r['request_id'])).size).toBe(rows.length);
    // The emulator's catalog prices its models: every shard's file has cost_usd, and so has the merged one.
    expect(Object.keys(rows[0] ?? {})).toEqual([...REQUEST_COLUMNS, 'cost_usd']);

    // The time series adds: every request completed once, in one second or another.
    const series = parseCsvRecords(readFileSync(join(out, 'timeseries.csv'), 'utf8')).records;
    const completed = series.reduce((sum, r) => sum + Number(r['completed']), 0);
    const shardCompleted = [shardA, shardB]
      .flatMap((dir) => parseCsvRecords(readFileSync(join(dir, 'timeseries.csv'), 'utf8')).records)
      .reduce((sum, r) => sum + Number(r['completed']), 0);
    expect(completed).toBe(shardCompleted);
    expect(series.every((r) => r['ttft_p50_ms'] === '')).toBe(true);
  });

  it('refuses runs of different profiles and workloads (exit 2) and merges them with --force, warning', async () => {
    const other = await run(folder.writeProfile('other', profile('merge-other', 8)), 'other');
    const refused = await runCliInProcess(['merge', shardA, other, '--out', join(folder.dir, 'refused')]);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/profile "merge-other"/);
    expect(refused.stderr).toMatch(/workload_hash/);
    expect(existsSync(join(folder.dir, 'refused', 'summary.json'))).toBe(false);

    const forced = await runCliInProcess(['merge', shardA, other, '--out', join(folder.dir, 'forced'), '--force']);
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/WARNING: --force/);
    expect(readSummary(join(folder.dir, 'forced')).groups[0]?.requests.ok).toBe(32);
  }, 60_000);

  it('refuses two shards with the same index', async () => {
    const copy = async (from: string, to: string, shard: object): Promise<string> => {
      const dir = join(folder.dir, to);
      const summary = { ...readSummary(from), shard };
      await runCliInProcess(['report', from, '--out', dir, '--quiet']);
      writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
      return dir;
    };
    const first = await copy(shardA, 'shard-0-a', { index: 0, count: 2 });
    const second = await copy(shardB, 'shard-0-b', { index: 0, count: 2 });
    const result = await runCliInProcess(['merge', first, second, '--out', join(folder.dir, 'dup')]);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toMatch(/shard index 0 appears 2 times/);
  });

  it('two --shard runs with labels and answer checks merge to the breakdowns and checks of one run', async () => {
    // Labels (prefix groups) and checked tool calls; closed loop with a fixed request count, so the two
    // shards send exactly the requests of the single run (requests 0, 2, 4, ... and 1, 3, 5, ...).
    const text = `name: merge-labels
scenarios:
  - name: tools
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 2 }
    requests: 24
    prompt: { input_tokens: 24, output_tokens: 24, prefixes: { groups: 3, tokens: 32 } }
    seed: 11
    request:
      tool_choice: required
      tools:
        - type: function
          function:
            name: lookup
            parameters: { type: object, properties: { q: { type: string } }, required: [q] }
`;
    const path = folder.writeProfile('merge-labels', text);
    const runWith = async (out: string, extra: string[]): Promise<string> => {
      const dir = join(folder.dir, out);
      const result = await runCliInProcess(['run', path, '--out', dir, '--quiet', ...extra], {
        cwd: folder.dir,
        target: await emulators.start(),
      });
      expect(result.code, result.stderr).toBe(0);
      return dir;
    };
    const whole = await runWith('labels-whole', []);
    const first = await runWith('labels-1', ['--shard', '1/2']);
    const second = await runWith('labels-2', ['--shard', '2/2']);
    const out = join(folder.dir, 'labels-merged');
    for (const order of [
      [first, second],
      [second, first],
    ]) {
      rmSync(out, { recursive: true, force: true });
      const result = await runCliInProcess(['merge', ...order, '--out', out]);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const merged = readSummary(out).groups[0];
      const single = readSummary(whole).groups[0];
      expect(merged?.requests.ok).toBe(24);
      expect(single?.requests.ok).toBe(24);
      // Checks: the same counts as one run (the emulator's calls conform: every check passes).
      const counts = (g: GroupSummary | undefined) =>
        Object.fromEntries(Object.entries(g?.checks ?? {}).map(([k, v]) => [k, [v.passed, v.failed]]));
      expect(counts(merged)).toEqual(counts(single));
      expect(counts(merged)).toEqual({ tool_arguments: [24, 0] });
      // Breakdowns: every prefix group counts the same requests, ok, failed and token sums.
      const cells = (g: GroupSummary | undefined) =>
        Object.fromEntries(
          Object.entries(g?.breakdowns?.prefix ?? {}).map(([value, c]) => [
            value,
            [c.requests, c.ok, c.failed, c.ttft_ms.count, c.e2e_ms.count, c.input_tokens, c.cached_tokens],
          ]),
        );
      expect(Object.keys(cells(single))).toEqual(['p0', 'p1', 'p2']);
      expect(cells(merged)).toEqual(cells(single));
      // requests.csv: checks_failed, then labels, last.
      const header = parseCsvRecords(readFileSync(join(out, 'requests.csv'), 'utf8')).columns;
      expect(header.slice(-2)).toEqual(['checks_failed', 'labels']);
    }
  }, 120_000);

  it('exits 99 when a threshold fails on the merged result', async () => {
    const path = folder.writeProfile('strict', profile('merge-strict', 7, 'thresholds: ["requests_per_s > 100000"]\n'));
    const a = await run(path, 'strict-a', 99);
    const b = await run(path, 'strict-b', 99);
    const result = await runCliInProcess(['merge', a, b, '--out', join(folder.dir, 'strict-merged')]);
    expect(result.code, result.stdout + result.stderr).toBe(99);
    expect(result.stdout).toMatch(/FAIL\s+requests_per_s > 100000/);
    const merged = readSummary(join(folder.dir, 'strict-merged'));
    expect(merged.thresholds).toHaveLength(1);
    expect(merged.thresholds[0]?.passed).toBe(false);
  }, 60_000);
});
