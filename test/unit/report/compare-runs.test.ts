/** compareRuns on generated runs: identical passes, slower regresses by name, noise does not, mismatches refuse. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isInferbenchError } from '../../../src/errors.js';
import { compareRuns } from '../../../src/report/compare/compare-runs.js';
import { loadRequestValues, loadRun } from '../../../src/report/compare/load-run.js';
import { makeRunDir } from '../../fixtures/make-run.js';
import type { FixtureOptions } from '../../fixtures/make-run.js';

const root = mkdtempSync(join(tmpdir(), 'inferbench-compare-unit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
async function input(options: FixtureOptions) {
  const fixture = makeRunDir(join(root, `run-${n++}`), options);
  const run = await loadRun(fixture.dir);
  return { dir: run.dir, summary: run.summary, requests: await loadRequestValues(run.dir) };
}

describe('compareRuns', () => {
  it('a run compared with itself has no regression and p = 1 everywhere', async () => {
    const a = await input({ seed: 1 });
    const result = compareRuns(a, a);
    expect(result.regressions).toBe(0);
    // 4 groups x 9 default metrics.
    expect(result.comparisons).toHaveLength(36);
    expect(result.comparisons.every((c) => c.verdict === 'within_tolerance')).toBe(true);
    expect(result.comparisons.filter((c) => c.pValue !== null).every((c) => c.pValue! > 0.999)).toBe(true);
  });

  it('a 50% slower candidate regresses on TTFT and E2E in every group, tested on requests.csv', async () => {
    const base = await input({ seed: 1 });
    const slow = await input({ seed: 2, slowdown: 1.5 });
    const result = compareRuns(base, slow);
    const regressed = result.comparisons.filter((c) => c.verdict === 'regression');
    for (const group of base.summary.groups) {
      for (const metric of ['ttft_ms.p50', 'e2e_ms.p50', 'itl_ms.p50']) {
        const c = regressed.find((r) => r.group === group.key && r.metricId === metric);
        expect(c, `${group.key} ${metric}`).toBeDefined();
        expect(c!.relativeChange!).toBeGreaterThan(0.2);
      }
    }
    const ttft = regressed.find((c) => c.metricId === 'ttft_ms.p50')!;
    expect(ttft.test).toBe('quantile test at p50 (requests.csv)');
    expect(ttft.reason).toMatch(/ttft_ms\.p50 regressed/);
    // ITL has no per-request column: it is tested on the histograms.
    expect(regressed.find((c) => c.metricId === 'itl_ms.p50')!.test).toBe('quantile test at p50 (histograms)');
  });

  it('the same speed with other seeds is not a regression, and faster is an improvement', async () => {
    const base = await input({ seed: 3 });
    for (const seed of [4, 5, 6, 7, 8]) {
      const again = await input({ seed });
      const result = compareRuns(base, again);
      expect(result.comparisons.filter((c) => c.verdict === 'regression').map((c) => c.reason)).toEqual([]);
    }
    const fast = await input({ seed: 5, slowdown: 0.6 });
    const result = compareRuns(base, fast);
    expect(result.regressions).toBe(0);
    expect(result.comparisons.some((c) => c.verdict === 'improved' && c.metricId === 'e2e_ms.p50')).toBe(true);
  });

  it('falls back to the histograms without requests.csv', async () => {
    const base = await input({ seed: 1, withRequestsCsv: false });
    const slow = await input({ seed: 2, slowdown: 1.5, withRequestsCsv: false });
    const result = compareRuns(base, slow);
    const c = result.comparisons.find((r) => r.metricId === 'ttft_ms.p50')!;
    expect(c.verdict).toBe('regression');
    expect(c.test).toBe('quantile test at p50 (histograms)');
  });

  it('a loose tolerance absorbs a significant slowdown; error_rate uses an absolute tolerance', async () => {
    const base = await input({ seed: 1 });
    const slow = await input({ seed: 2, slowdown: 1.5, failureRate: 0.12 });
    const loose = compareRuns(base, slow, { tolerances: { 'ttft_ms.p50': '80%', 'ttft_ms.p99': 'off', 'e2e_ms.p50': '1000ms' } });
    expect(loose.comparisons.find((c) => c.metricId === 'ttft_ms.p50' && c.group === base.summary.groups[0]!.key)!.verdict).not.toBe('regression');
    expect(loose.comparisons.some((c) => c.metricId === 'ttft_ms.p99')).toBe(false);
    const errorRate = loose.comparisons.filter((c) => c.metricId === 'error_rate');
    expect(errorRate.every((c) => c.test === "Fisher's exact test")).toBe(true);
    expect(errorRate.some((c) => c.verdict === 'regression')).toBe(true);
  });

  it('takes default tolerances from the baseline profile', async () => {
    const base = await input({ seed: 1, compareTolerances: { 'ttft_ms.p50': '500%' } });
    const slow = await input({ seed: 2, slowdown: 1.5 });
    const result = compareRuns(base, slow);
    expect(result.comparisons.filter((c) => c.metricId === 'ttft_ms.p50').every((c) => c.verdict !== 'regression' && c.tolerance === '+500%')).toBe(true);
  });

  it('warns when a run is incomplete or its client was the bottleneck', async () => {
    const base = await input({ seed: 1 });
    const cand = await input({ seed: 1 });
    const shaky = { ...cand, summary: { ...cand.summary, complete: false, harness: { ...cand.summary.harness, client_bottleneck: true, warnings: ['event-loop delay p99 40 ms'] } } };
    const result = compareRuns(base, shaky);
    expect(result.warnings).toEqual([
      'the candidate run is incomplete (interrupted or stopped early)',
      "the candidate run's client may have been its own bottleneck: event-loop delay p99 40 ms",
    ]);
    expect(compareRuns(base, cand).warnings).toEqual([]);
  });

  it('refuses runs with different workloads, models or targets unless forced', async () => {
    const base = await input({ seed: 1 });
    const other = await input({ seed: 1, workloadHash: 'b'.repeat(64), models: ['model-a'], baseUrl: 'https://api.example.com' });
    try {
      compareRuns(base, other);
      expect.unreachable();
    } catch (error) {
      expect(isInferbenchError(error) && error.code).toBe('BAD_RESULTS');
      const message = (error as Error).message;
      expect(message).toMatch(/workload hash differs/);
      expect(message).toMatch(/models differ/);
      expect(message).toMatch(/target differs/);
    }
    const forced = compareRuns(base, other, { force: true });
    expect(forced.forced).toBe(true);
    // Only the shared groups (model-a x 2 tiers) are compared.
    expect(new Set(forced.comparisons.map((c) => c.group)).size).toBe(2);
  });

  it('refuses, even when forced, two runs with no group in common: a pass over nothing would mislead CI', async () => {
    const base = await input({ seed: 1, models: ['model-a'] });
    const other = await input({ seed: 1, models: ['model-z'] });
    expect(() => compareRuns(base, other, { force: true })).toThrow(/no group .* in common/);
  });
});
