/**
 * `inferbench trend`: on real runs (in-process emulators, real sockets) it names runs by `run --label` or
 * GITHUB_SHA, which `run` records in summary.json, and marks the run against a slower emulator as a change
 * point; on a folder of ten downloaded "artifacts" (fixture runs, a regression planted at run 7) it writes
 * trend.html and trend.csv into reports/trend/ by default and prints the change points; bad input exits 2.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { compareReadyProfile, slowEmulatorConfig, TAILS_OFF } from '../helpers/compare-ready-runs.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { makeRunDir } from '../fixtures/make-run.js';
import { fakeCommit, makeTrendRuns } from '../fixtures/trend-runs.js';

let dir: string;
const emulators = useInProcessEmulators();

const PROFILE = compareReadyProfile('trend-real', 24);

const SLOW_CONFIG = slowEmulatorConfig(200);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'inferbench-trend-'));
  writeFileSync(join(dir, 'profile.yaml'), PROFILE);
  writeFileSync(join(dir, 'slow.yaml'), SLOW_CONFIG);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(
  out: string,
  flags: readonly string[],
  env: Record<string, string>,
  configPath?: string,
): Promise<string> {
  const target = await emulators.start(configPath === undefined ? {} : { configPath });
  const result = await runCliInProcess(
    ['run', join(dir, 'profile.yaml'), '--out', join(dir, 'real', out), '--quiet', ...flags],
    { cwd: dir, target, env },
  );
  expect(result.code, result.stderr).toBe(0);
  return join(dir, 'real', out);
}

const summaryOf = (runDir: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Record<string, unknown>;

describe('trend on real runs', () => {
  it('records --label and GITHUB_SHA in summary.json, names runs by them and marks the slower run', async () => {
    const sha = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
    const first = await run('1', ['--label', 'v1.2.0'], {});
    const second = await run('2', [], { GITHUB_SHA: sha });
    const third = await run('3', ['--label', 'slow-build'], { GITHUB_SHA: sha }, join(dir, 'slow.yaml'));
    expect([summaryOf(first)['label'], summaryOf(first)['commit']]).toEqual(['v1.2.0', null]);
    expect([summaryOf(second)['label'], summaryOf(second)['commit']]).toEqual([null, sha]);
    expect([summaryOf(third)['label'], summaryOf(third)['commit']]).toEqual(['slow-build', sha]);

    const out = join(dir, 'real-trend');
    // Given out of order: the trend orders them by started_at.
    const result = await runCliInProcess(['trend', third, first, second, '--out', out, ...TAILS_OFF], { cwd: dir });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('1. v1.2.0');
    expect(result.stdout).toContain('2. a1b2c3d');
    expect(result.stdout).toContain('3. slow-build');
    expect(result.stdout).toMatch(/run 3 \(slow-build\) REGRESSION steady\/small-fast-8b\/- ttft_ms\.p50/);
    expect(result.stdout).not.toMatch(/run 2 \(/);
    expect(existsSync(join(out, 'trend.html'))).toBe(true);
    const rows = parse(readFileSync(join(out, 'trend.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const ttft = rows.filter((r) => r['metric'] === 'ttft_ms.p50');
    const p50 = (runDir: string): number =>
      (summaryOf(runDir)['groups'] as { metrics: { ttft_ms: { p50: number } } }[])[0]!.metrics.ttft_ms.p50;
    expect(ttft.map((r) => Number(r['value']))).toEqual([p50(first), p50(second), p50(third)]);
    expect(ttft.map((r) => r['change_point'])).toEqual(['', '', 'regression']);
  });
});

describe('trend on a folder of downloaded artifacts', () => {
  let artifacts = '';
  beforeAll(() => {
    artifacts = join(dir, 'artifacts');
    makeTrendRuns(artifacts);
  });

  it('writes trend.html and trend.csv into reports/trend/ by default and prints the change points of run 7', async () => {
    const cwd = join(dir, 'work');
    mkdirSync(cwd, { recursive: true });
    const result = await runCliInProcess(['trend', artifacts], { cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('10 runs, in order:');
    expect(result.stdout).toContain(`10. ${fakeCommit(10).slice(0, 7)}`);
    const changeLines = result.stdout.split('\n').filter((line) => /^ {2}run \d+ /.test(line));
    expect(changeLines.length).toBeGreaterThan(0);
    expect(changeLines.every((line) => line.startsWith(`  run 7 (${fakeCommit(7).slice(0, 7)}) REGRESSION `))).toBe(
      true,
    );
    expect(result.stdout).toContain(`trend.html: ${join(cwd, 'reports', 'trend', 'trend.html')}`);
    expect(existsSync(join(cwd, 'reports', 'trend', 'trend.csv'))).toBe(true);

    const json = await runCliInProcess(['trend', artifacts, '--out', join(dir, 'json-out'), '--json'], { cwd });
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as { runs: { name: string }[]; change_points: { position: number }[] };
    expect(parsed.runs.map((r) => r.name)[0]).toBe('v1.0.0');
    expect(new Set(parsed.change_points.map((c) => c.position))).toEqual(new Set([7]));
  });

  it('exits 2 on one run, on a path that does not exist, and on runs of another workload (unless --force)', async () => {
    const one = await runCliInProcess(['trend', join(artifacts, 'artifact-a')], { cwd: dir });
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/at least two runs/);

    const missing = await runCliInProcess(['trend', join(dir, 'nope'), join(artifacts, 'artifact-a')], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('does not exist');

    const other = makeRunDir(join(dir, 'other'), {
      models: ['model-a'],
      tiers: ['default', 'priority'],
      workloadHash: 'b'.repeat(64),
      startedAt: '2026-11-23T00:00:00.000Z',
    });
    const refused = await runCliInProcess(
      ['trend', join(artifacts, 'artifact-a'), other.dir, '--out', join(dir, 'x')],
      {
        cwd: dir,
      },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/runs 1 \(\w+\) and 2 \(fixture-7\).*did not send the same workload/);

    const forced = await runCliInProcess(
      ['trend', join(artifacts, 'artifact-a'), other.dir, '--out', join(dir, 'x'), '--force'],
      { cwd: dir },
    );
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(dir, 'x', 'trend.html'), 'utf8')).toContain('--force: workload hash differs');
  });
});
