/**
 * `inferbench compare` in-process on generated runs with per-request CSVs: identical runs exit 0, a
 * slower candidate exits 99 and names the metric, mismatched workloads exit 2 (or compare with --force
 * and a warning), JUnit / markdown / compare.html written, $GITHUB_STEP_SUMMARY appended.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { runCliInProcess } from '../helpers/cli.js';
import { makeRunDir } from '../fixtures/make-run.js';

let root: string;
let base: string;
let same: string;
let slow: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'inferbench-compare-cli-'));
  base = makeRunDir(join(root, 'base'), { seed: 1, runId: 'base-run' }).dir;
  same = makeRunDir(join(root, 'same'), { seed: 1, runId: 'same-run' }).dir;
  slow = makeRunDir(join(root, 'slow'), { seed: 2, slowdown: 1.6, runId: 'slow-run' }).dir;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('inferbench compare', () => {
  it('identical runs pass with exit 0 and write compare.html into the candidate dir', async () => {
    const r = await runCliInProcess(['compare', base, same]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/PASS: no significant regression beyond tolerance \(36 checks, alpha 0\.05 \(Holm\)\)/);
    expect(r.stdout).toContain('steady/model-a/priority');
    // Both runs went to the embedded emulator (each on its own port): one target, shown as such.
    expect(r.stdout).toMatch(/baseline\s+base-run\s+http:\/\/127\.0\.0\.1:\d+ \(embedded emulator\)/);
    expect(r.stdout).not.toContain('targets differ');
    expect(existsSync(join(same, 'compare.html'))).toBe(true);
  });

  it('a slower candidate fails with exit 99 and names the metric; outputs for CI', async () => {
    const summaryFile = join(root, 'step-summary.md');
    writeFileSync(summaryFile, '# earlier step\n');
    const junit = join(root, 'out', 'junit.xml');
    const markdown = join(root, 'out', 'compare.md');
    const r = await runCliInProcess(
      [
        'compare',
        join(base, 'summary.json'),
        slow,
        '--junit',
        junit,
        '--markdown',
        markdown,
        '--out',
        join(root, 'html'),
      ],
      {
        env: { GITHUB_STEP_SUMMARY: summaryFile },
      },
    );
    expect(r.code).toBe(99);
    expect(r.stdout).toMatch(
      /FAIL: \d+ regression\(s\) beyond tolerance at alpha 0\.05 \(Holm\): .*steady\/model-a\/priority ttft_ms\.p50/,
    );
    expect(r.stdout).toMatch(/ttft_ms\.p50 .* REGRESSION/);
    const step = readFileSync(summaryFile, 'utf8');
    expect(step.startsWith('# earlier step\n### inferbench compare: ❌')).toBe(true);
    expect(readFileSync(markdown, 'utf8')).toContain('**REGRESSION**');
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(readFileSync(junit, 'utf8'));
    expect(Number(doc.testsuites['@tests'])).toBe(36);
    expect(Number(doc.testsuites['@failures'])).toBeGreaterThan(0);
    expect(existsSync(join(root, 'html', 'compare.html'))).toBe(true);
  });

  it('--tolerance loosens a metric and --quiet prints only the verdict', async () => {
    const loose = ['ttft_ms', 'itl_ms', 'tpot_ms', 'e2e_ms'].flatMap((m) => [
      '--tolerance',
      `${m}.p50=off`,
      '--tolerance',
      `${m}.p99=off`,
    ]);
    const r = await runCliInProcess(['compare', base, slow, '--quiet', ...loose]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('PASS: no significant regression beyond tolerance (4 checks, alpha 0.05 (Holm))');
  });

  it('refuses different workloads with exit 2, compares them with --force and a loud warning', async () => {
    const other = makeRunDir(join(root, 'other'), { seed: 1, workloadHash: 'f'.repeat(64) }).dir;
    const refused = await runCliInProcess(['compare', base, other]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/workload hash differs/);
    expect(refused.stderr).toMatch(/hint: .*--force/);
    const forced = await runCliInProcess(['compare', base, other, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toMatch(/WARNING: --force/);
  });

  it('bad input exits 2 with a clear message', async () => {
    const missing = await runCliInProcess(['compare', join(root, 'nope'), slow]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No run results at/);
    const badFile = join(root, 'bad.json');
    writeFileSync(badFile, '{"hello": 1}');
    const bad = await runCliInProcess(['compare', badFile, slow]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not an inferbench summary\.json/);
    const badTolerance = await runCliInProcess(['compare', base, slow, '--tolerance', 'ttft.p99=10%']);
    expect(badTolerance.code).toBe(2);
    expect(badTolerance.stderr).toMatch(/unknown metric "ttft"/);
  });
});
