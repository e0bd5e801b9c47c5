/**
 * Calibration of compare's verdict on generated runs (seeded, so deterministic): 30 pairs of same-speed
 * runs must give no regression (false alarms), and 30 pairs with a 15% slowdown must all fail
 * (detection). 4 groups x 200 requests, the 9 default metrics, Holm correction: the numbers the README
 * quotes. 90 runs of 800 requests generated, read back and compared: ~25 s of one core, so it is
 * out of the inner loop (`npm run test:fast`); `npm test` runs it.
 * @module-tag slow
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareRuns } from '../../../src/report/compare/compare-runs.js';
import type { CompareInput } from '../../../src/report/compare/compare-runs.js';
import { loadRequestValues, loadRun } from '../../../src/report/compare/load-run.js';
import { makeRunDir } from '../../fixtures/make-run.js';

const root = mkdtempSync(join(tmpdir(), 'inferbench-calibration-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function input(seed: number, slowdown: number): Promise<CompareInput> {
  const run = await loadRun(makeRunDir(join(root, `${seed}-${slowdown}`), { seed, slowdown }).dir);
  return { dir: run.dir, summary: run.summary, requests: await loadRequestValues(run.dir) };
}

describe('compare calibration', () => {
  it('0 of 30 same-speed pairs fail; 30 of 30 pairs 15% slower fail', async () => {
    const falseAlarms: string[] = [];
    let detected = 0;
    for (let seed = 100; seed < 160; seed += 2) {
      const base = await input(seed, 1);
      const same = compareRuns(base, await input(seed + 1, 1));
      falseAlarms.push(
        ...same.comparisons.filter((c) => c.verdict === 'regression').map((c) => `${seed}: ${c.reason}`),
      );
      if (compareRuns(base, await input(seed + 1, 1.15)).regressions > 0) detected++;
    }
    expect(falseAlarms).toEqual([]);
    expect(detected).toBe(30);
  });
});
