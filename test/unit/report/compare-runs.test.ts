/** compareRuns on generated runs: identical passes, slower regresses by name, noise does not, mismatches refuse. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isInferbenchError } from '../../../src/errors.js';
import type { InferbenchError } from '../../../src/errors.js';
import { compareRuns } from '../../../src/report/compare/compare-runs.js';
import { loadRequestValues, loadRun } from '../../../src/report/compare/load-run.js';
import { makeRunDir } from '../../fixtures/make-run.js';
import type { FixtureOptions } from '../../fixtures/make-run.js';

const root = mkdtempSync(join(tmpdir(), 'inferbench-compare-unit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
type Input = Awaited<ReturnType<typeof loadInput>>;
async function loadInput(options: FixtureOptions) {
  const fixture = makeRunDir(join(root, `run-${n++}`), options);
  const run = await loadRun(fixture.dir);
  return { dir: run.dir, summary: run.summary, requests: await loadRequestValues(run.dir) };
}
/**
 * A generated run, made once per options (the fixture's histograms and requests.csv are most of the file's
 * CPU); frozen deeply, so a test that changes a run must copy it (as they do, with spreads).
 */
const made = new Map<string, Promise<Input>>();
function input(options: FixtureOptions): Promise<Input> {
  const key = JSON.stringify(options);
  let run = made.get(key);
  if (run === undefined) {
    run = loadInput(options).then(deepFreeze);
    made.set(key, run);
  }
  return run;
}
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
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
    const loose = compareRuns(base, slow, {
      tolerances: { 'ttft_ms.p50': '80%', 'ttft_ms.p99': 'off', 'e2e_ms.p50': '1000ms' },
    });
    expect(
      loose.comparisons.find((c) => c.metricId === 'ttft_ms.p50' && c.group === base.summary.groups[0]!.key)!.verdict,
    ).not.toBe('regression');
    expect(loose.comparisons.some((c) => c.metricId === 'ttft_ms.p99')).toBe(false);
    const errorRate = loose.comparisons.filter((c) => c.metricId === 'error_rate');
    expect(errorRate.every((c) => c.test === "Fisher's exact test")).toBe(true);
    expect(errorRate.some((c) => c.verdict === 'regression')).toBe(true);
  });

  it('tests answer-check pass rates on their passed / failed counts, as error_rate is tested', async () => {
    const base = await input({ seed: 1 });
    const cand = await input({ seed: 1 });
    const withChecks = (run: typeof base, passed: number, failed: number): typeof base => ({
      ...run,
      summary: {
        ...run.summary,
        groups: run.summary.groups.map((g) => ({
          ...g,
          checks: { tool_arguments: { passed, failed, pass_rate: passed / (passed + failed), samples: [] } },
        })),
      },
    });
    const tolerances = { tool_arguments_pass_rate: '0.01' };
    const passRates = (b: typeof base, c: typeof base) =>
      compareRuns(b, c, { tolerances }).comparisons.filter((x) => x.metricId === 'tool_arguments_pass_rate');
    // 95 of 100 -> 90 of 100: beyond the tolerance, but chance at these counts (Fisher p ~ 0.28).
    const noisy = passRates(withChecks(base, 95, 5), withChecks(cand, 90, 10));
    expect(noisy).toHaveLength(base.summary.groups.length);
    for (const c of noisy) {
      expect(c.test).toBe("Fisher's exact test");
      expect(c.pValue!).toBeGreaterThan(0.1);
      expect(c.verdict).toBe('not_significant');
    }
    // 990 of 1000 -> 800 of 1000: a real drop.
    for (const c of passRates(withChecks(base, 990, 10), withChecks(cand, 800, 200))) {
      expect(c.pValue!).toBeLessThan(1e-6);
      expect(c.verdict).toBe('regression');
    }
    // Beyond 20,000 checks in all: the two-proportion z-test.
    const big = passRates(withChecks(base, 19_000, 1_000), withChecks(cand, 18_000, 2_000));
    expect(big.every((c) => c.test === 'two-proportion z-test' && c.verdict === 'regression')).toBe(true);
  });

  it('takes default tolerances from the baseline profile', async () => {
    const base = await input({ seed: 1, compareTolerances: { 'ttft_ms.p50': '500%' } });
    const slow = await input({ seed: 2, slowdown: 1.5 });
    const result = compareRuns(base, slow);
    expect(
      result.comparisons
        .filter((c) => c.metricId === 'ttft_ms.p50')
        .every((c) => c.verdict !== 'regression' && c.tolerance === '+500%'),
    ).toBe(true);
  });

  it('warns when a run is incomplete or its client was the bottleneck', async () => {
    const base = await input({ seed: 1 });
    const cand = await input({ seed: 1 });
    const shaky = {
      ...cand,
      summary: {
        ...cand.summary,
        complete: false,
        harness: { ...cand.summary.harness, client_bottleneck: true, warnings: ['event-loop delay p99 40 ms'] },
      },
    };
    const result = compareRuns(base, shaky);
    expect(result.warnings).toEqual([
      'the candidate run is incomplete (interrupted or stopped early)',
      "the candidate run's client may have been its own bottleneck: event-loop delay p99 40 ms",
    ]);
    expect(compareRuns(base, cand).warnings).toEqual([]);
  });

  it('refuses runs with different workloads or models unless forced, and never for a different target', async () => {
    const base = await input({ seed: 1 });
    const other = await input({
      seed: 1,
      workloadHash: 'b'.repeat(64),
      models: ['model-a'],
      baseUrl: 'https://api.example.com',
    });
    try {
      compareRuns(base, other);
      expect.unreachable();
    } catch (error) {
      expect(isInferbenchError(error) && error.code).toBe('BAD_RESULTS');
      const message = (error as Error).message;
      expect(message).toMatch(/workload hash differs/);
      expect(message).toMatch(/models differ/);
      expect(message).not.toMatch(/target/);
      expect((error as InferbenchError).hint).toMatch(/--pair <baseline group>=<candidate group>/);
    }
    const forced = compareRuns(base, other, { force: true });
    expect(forced.forced).toBe(true);
    // Only the shared groups (model-a x 2 tiers) are compared.
    expect(new Set(forced.comparisons.map((c) => c.group)).size).toBe(2);
  });

  it('compares the same workload sent to two targets, and reports both (credentials stripped)', async () => {
    const base = await input({ seed: 1, baseUrl: 'http://user:secret@127.0.0.1:40559' });
    const cand = await input({ seed: 2, baseUrl: 'http://127.0.0.1:36447' });
    const result = compareRuns(base, cand);
    expect(result.mismatches).toEqual([]);
    expect(result.forced).toBe(false);
    expect(result.sameTarget).toBe(false);
    expect(result.baseline.target).toEqual({ baseUrl: 'http://127.0.0.1:40559', embeddedEmulator: false });
    expect(result.candidate.target).toEqual({ baseUrl: 'http://127.0.0.1:36447', embeddedEmulator: false });
    expect(JSON.stringify(result)).not.toContain('secret');
    // Two runs against the embedded emulator (a new port each time) have the same target.
    const embedded = compareRuns(await input({ seed: 1 }), await input({ seed: 2 }));
    expect(embedded.sameTarget).toBe(true);
    expect(embedded.baseline.target.embeddedEmulator).toBe(true);
  });

  describe('--pair', () => {
    const named = (model: string, seed: number, extra: FixtureOptions = {}) =>
      input({
        seed,
        models: [model],
        tiers: [null],
        workloadHash: `${model.length}`.repeat(64).slice(0, 64),
        workloadHashWithoutModels: 'd'.repeat(64),
        ...extra,
      });

    it('compares groups whose model names differ when the workload without model names is the same', async () => {
      const vllm = await named('llama', 1);
      const sglang = await named('llama-3', 2);
      expect(() => compareRuns(vllm, sglang)).toThrow(/\(the same requests, to models named differently\)/);
      const result = compareRuns(vllm, sglang, { pairs: ['steady/llama/-=steady/llama-3/-'] });
      expect(result.mismatches).toEqual([]);
      expect(result.forced).toBe(false);
      expect(result.pairs).toEqual([{ baseline: 'steady/llama/-', candidate: 'steady/llama-3/-' }]);
      expect(result.comparisons.length).toBeGreaterThan(0);
      expect(
        result.comparisons.every((c) => c.group === 'steady/llama/-' && c.candidateGroup === 'steady/llama-3/-'),
      ).toBe(true);
      // The requests.csv values of the paired candidate group are used, not only the histograms.
      expect(result.comparisons.find((c) => c.metricId === 'ttft_ms.p50')!.test).toMatch(/requests\.csv/);
    });

    it('still refuses paired groups whose requests differ, or a run that recorded no hash without models', async () => {
      const vllm = await named('llama', 1);
      const otherPrompts = await named('llama-3', 2, { workloadHashWithoutModels: 'c'.repeat(64) });
      expect(() => compareRuns(vllm, otherPrompts, { pairs: ['steady/llama/-=steady/llama-3/-'] })).toThrow(
        /workload hash without model names differs/,
      );
      const old = await named('llama-3', 2, { workloadHashWithoutModels: null });
      expect(old.summary.workload_hash_without_models).toBeNull();
      expect(() => compareRuns(vllm, old, { pairs: ['steady/llama/-=steady/llama-3/-'] })).toThrow(
        /no workload_hash_without_models/,
      );
      expect(compareRuns(vllm, old, { pairs: ['steady/llama/-=steady/llama-3/-'], force: true }).forced).toBe(true);
    });

    it('refuses a pair across tiers and groups left without a partner', async () => {
      const base = await input({
        seed: 1,
        models: ['llama'],
        tiers: ['priority', 'flex'],
        workloadHash: '1'.repeat(64),
        workloadHashWithoutModels: 'd'.repeat(64),
      });
      const cand = await input({
        seed: 2,
        models: ['llama-3'],
        tiers: ['priority', 'flex'],
        workloadHash: '2'.repeat(64),
        workloadHashWithoutModels: 'd'.repeat(64),
      });
      expect(() => compareRuns(base, cand, { pairs: ['steady/llama/priority=steady/llama-3/flex'] })).toThrow(
        /tiers differ \(priority vs flex\)[\s\S]*groups without a partner/,
      );
      const both = compareRuns(base, cand, {
        pairs: ['steady/llama/priority=steady/llama-3/priority', 'steady/llama/flex=steady/llama-3/flex'],
      });
      expect(new Set(both.comparisons.map((c) => `${c.group}=${c.candidateGroup}`))).toEqual(
        new Set(['steady/llama/priority=steady/llama-3/priority', 'steady/llama/flex=steady/llama-3/flex']),
      );
    });

    it('a --pair naming no group of its run is BAD_USAGE listing the group keys', async () => {
      const vllm = await named('llama', 1);
      const sglang = await named('llama-3', 2);
      for (const [flag, pattern] of [
        ['steady/llama/-=steady/nope/-', /the candidate run has no group "steady\/nope\/-"/],
        ['steady/nope/-=steady/llama-3/-', /the baseline run has no group "steady\/nope\/-"/],
        ['steady/llama/-', /expected baseline_group=candidate_group/],
      ] as const) {
        try {
          compareRuns(vllm, sglang, { pairs: [flag] });
          expect.unreachable();
        } catch (error) {
          expect(isInferbenchError(error) && error.code, flag).toBe('BAD_USAGE');
          expect((error as Error).message).toMatch(pattern);
          expect((error as InferbenchError).hint).toContain(
            'baseline groups: steady/llama/-; candidate groups: steady/llama-3/-',
          );
        }
      }
      expect(() =>
        compareRuns(vllm, sglang, { pairs: ['steady/llama/-=steady/llama-3/-', 'steady/llama/-=steady/llama-3/-'] }),
      ).toThrow(/paired more than once/);
    });
  });

  it('refuses, even when forced, two runs with no group in common: a pass over nothing would mislead CI', async () => {
    const base = await input({ seed: 1, models: ['model-a'] });
    const other = await input({ seed: 1, models: ['model-z'] });
    expect(() => compareRuns(base, other, { force: true })).toThrow(/no group .* in common/);
  });
});
