/**
 * The CI verdict and comment.md (report/ci-comment.ts) on fixture runs: which failure a verdict names
 * (a regression, then invalid evidence, then a threshold), what the table says fails CI under fail-on, the
 * regressions with their p-values, and hostile strings from the profile and the server escaped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src/metrics/run-summary.js';
import {
  CI_COMMENT_MARKER,
  CI_FAILURES,
  ciFailuresOf,
  ciVerdictOf,
  formatCiComment,
  type CiFindings,
} from '../../../src/report/ci-comment.js';
import { compareRuns, type CompareResult } from '../../../src/report/compare/compare-runs.js';
import { loadRequestValues, loadRun } from '../../../src/report/compare/load-run.js';
import { HOSTILE_MODEL, makeRunDir } from '../../fixtures/make-run.js';

let root: string;
let slower: CompareResult;
let same: CompareResult;
let candidate: RunSummary;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'inferbench-ci-comment-'));
  const load = async (name: string, seed: number, slowdown: number) => {
    const run = await loadRun(makeRunDir(join(root, name), { seed, slowdown }).dir);
    return { dir: run.dir, summary: run.summary, requests: await loadRequestValues(run.dir) };
  };
  const base = await load('base', 1, 1);
  const slow = await load('slow', 2, 1.5);
  slower = compareRuns(base, slow);
  same = compareRuns(base, base);
  // Its thresholds as each test sets them (the fixture fails some).
  candidate = { ...slow.summary, thresholds: [] };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const FAILED_THRESHOLD = {
  expression: 'ttft_ms.p99 < 1',
  group: 'all',
  actual: 42,
  passed: false,
} as unknown as RunSummary['thresholds'][number];

function findings(over: Partial<CiFindings>): CiFindings {
  return { summary: candidate, invalid: [], compare: null, baseline: null, error: null, ...over };
}

const ARTIFACTS = {
  runDir: 'reports/r_1',
  report: 'reports/r_1/report.html',
  compareReport: null,
  workflowRunUrl: 'https://github.com/o/r/actions/runs/1',
};
const ALL = new Set(CI_FAILURES);

describe('the CI verdict', () => {
  it('is pass with nothing found, and names a regression before invalid evidence before a threshold', () => {
    const withThreshold = { ...candidate, thresholds: [FAILED_THRESHOLD] };
    expect(slower.regressions).toBeGreaterThan(0);
    expect(ciVerdictOf(findings({ compare: same }))).toBe('pass');
    expect(ciVerdictOf(findings({ summary: withThreshold }))).toBe('threshold');
    expect(ciVerdictOf(findings({ summary: withThreshold, invalid: ['client-bound'] }))).toBe('invalid');
    const everything = findings({ summary: withThreshold, invalid: ['client-bound'], compare: slower });
    expect(ciFailuresOf(everything)).toEqual(['regression', 'invalid', 'threshold']);
    expect(ciVerdictOf(everything)).toBe('regression');
    expect(ciVerdictOf({ ...everything, error: { step: 'compare', exitCode: 2 } })).toBe('error');
  });
});

describe('comment.md', () => {
  it('lists the regressions with their Holm p-values, escaped, and says what fails CI under fail-on', () => {
    const text = formatCiComment(findings({ compare: slower, baseline: 'baseline/' }), new Set(['threshold']), 0, {
      ...ARTIFACTS,
      compareReport: 'reports/r_1/compare.html',
    });
    expect(text.startsWith(`${CI_COMMENT_MARKER}\n### inferbench `)).toBe(true);
    expect(text).toContain('❌ regression');
    expect(text).toContain('Verdict `regression`, exit code 0 (fail-on: threshold).');
    expect(text).toContain(`| baseline | ${slower.regressions} regression(s) against `);
    expect(text).toContain('| no (regression is not in fail-on) |');
    const rows = text.split('\n').filter((line) => line.endsWith('| **REGRESSION** |'));
    expect(rows).toHaveLength(slower.regressions);
    // Every row's p (Holm) cell is the adjusted p-value of a regression, below alpha.
    for (const row of rows) {
      const p = row.split(' | ')[5] as string;
      expect(Number(p.replace(/^&lt;/, ''))).toBeLessThan(slower.alpha);
    }
    expect(text).not.toContain(HOSTILE_MODEL);
    expect(text).toContain('&lt;script&gt;');
    expect(text).toContain('- comparison: `reports/r_1/compare.html`');
    expect(text).toContain('- run folder: `reports/r_1`');
  });

  it('without a baseline: not compared; invalid evidence and failed thresholds named, each failing CI when asked', () => {
    const summary = { ...candidate, thresholds: [FAILED_THRESHOLD] };
    const text = formatCiComment(findings({ summary, invalid: ['arrivals were dropped <here>'] }), ALL, 5, ARTIFACTS);
    expect(text).toContain('⚠️ not valid evidence');
    expect(text).toContain('| baseline | none given: not compared |  |');
    expect(text).toContain('| validity | not valid evidence: arrivals were dropped &lt;here&gt; | **yes** |');
    expect(text).toContain('| thresholds | 1 of 1 failed | **yes** |');
    expect(text).toContain('| ttft\\_ms.p99 &lt; 1 | all | 42 |');
    expect(text).not.toContain('#### Regressions');
  });

  it('says which step could not be done when there is no verdict', () => {
    const text = formatCiComment(findings({ summary: null, error: { step: 'run', exitCode: 3 } }), ALL, 3, {
      ...ARTIFACTS,
      runDir: null,
      report: null,
    });
    expect(text).toContain('### inferbench: ❌ error');
    expect(text).toContain('The run step could not be done (exit 3)');
    expect(text).not.toContain('| check |');
  });
});
