/**
 * `run --junit FILE --markdown FILE` and $GITHUB_STEP_SUMMARY: a threshold failure shows up in CI as a failed
 * testcase of its group, and the markdown carries the verdict, every group and every threshold. One real run
 * against an emulator in this process, with one threshold made to fail; and `run --repeat 2` with both: one
 * JUnit file with a testcase per repeat and threshold, and one step summary with every repeat in one table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/metrics/run-summary.js';
import { runCliInProcess } from '../helpers/cli.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-run-ci-');
const emulators = useInProcessEmulators();

interface JunitCase {
  '@name': string;
  failure?: { '@message': string };
}
interface JunitSuite {
  '@name': string;
  '@tests': string;
  '@failures': string;
  testcase: JunitCase | JunitCase[];
}

describe('run --junit, --markdown and the GitHub step summary', () => {
  it('writes a failed testcase per failed threshold and group, and the markdown everywhere asked', async () => {
    const path = folder.writeProfile(
      'ci',
      `name: ci-outputs
scenarios:
  - name: s
    models: [small-fast-8b, large-70b]
    load: { mode: concurrency, concurrency: 2 }
    requests: 6
    prompt: { input_tokens: 16, output_tokens: 4 }
thresholds:
  - "error_rate < 0.5"
  - "s/large-70b/-: ttft_ms.p50 < 0.001"
`,
    );
    const stepSummary = join(folder.dir, 'step-summary.md');
    writeFileSync(stepSummary, '# earlier step\n');
    const dir = join(folder.dir, 'out');
    const result = await runCliInProcess(
      ['run', path, '--out', dir, '--junit', 'ci/junit.xml', '--markdown', 'ci/summary.md', '--quiet'],
      { cwd: folder.dir, env: { GITHUB_STEP_SUMMARY: stepSummary }, target: await emulators.start() },
    );
    expect(result.code, result.stderr).toBe(99);
    const summary = readSummary(dir) as RunSummary;

    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(
      readFileSync(join(folder.dir, 'ci', 'junit.xml'), 'utf8'),
    );
    const suites = doc.testsuites.testsuite as JunitSuite[];
    const cases = (suite: JunitSuite) => (Array.isArray(suite.testcase) ? suite.testcase : [suite.testcase]);
    expect(suites.map((s) => s['@name'])).toEqual(['s/small-fast-8b/-', 's/large-70b/-']);
    // small-fast-8b: "requests answered" and error_rate; large-70b: both, plus its own ttft threshold.
    expect(suites.map((s) => cases(s).map((c) => c['@name']))).toEqual([
      ['requests answered', 'error_rate < 0.5'],
      ['requests answered', 'error_rate < 0.5', 's/large-70b/-: ttft_ms.p50 < 0.001'],
    ]);
    expect(suites.map((s) => s['@failures'])).toEqual(['0', '1']);
    const failed = cases(suites[1] as JunitSuite)[2] as JunitCase;
    const actual = summary.thresholds.find((t) => !t.passed)?.actual;
    expect(failed.failure?.['@message']).toBe(
      `threshold failed: s/large-70b/-: ttft_ms.p50 < 0.001 (actual ${actual})`,
    );
    expect(doc.testsuites['@failures']).toBe('1');

    const markdown = readFileSync(join(folder.dir, 'ci', 'summary.md'), 'utf8');
    expect(markdown).toMatch(/^### inferbench run ci-outputs: ❌ 1 threshold\(s\) failed$/m);
    for (const group of summary.groups)
      expect(markdown).toContain(`| ${group.key} | ${group.requests.ok} | ${group.requests.failed} |`);
    expect(markdown).toContain('| s/large-70b/-: ttft\\_ms.p50 &lt; 0.001 | s/large-70b/- | ');
    expect(readFileSync(stepSummary, 'utf8')).toBe(`# earlier step\n${markdown}\n`);
  }, 60_000);

  it('--repeat: one JUnit file with a testcase per repeat and threshold, and one step summary for all the runs', async () => {
    const path = folder.writeProfile(
      'ci-repeat',
      `name: ci-repeat
scenarios:
  - name: s
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 2 }
    requests: 4
    prompt: { input_tokens: 16, output_tokens: 4 }
thresholds:
  - "error_rate < 0.5"
  - "ttft_ms.p50 < 0.001"
`,
    );
    const stepSummary = join(folder.dir, 'repeat-step-summary.md');
    writeFileSync(stepSummary, '# earlier step\n');
    const dir = join(folder.dir, 'repeat-out');
    const result = await runCliInProcess(
      ['run', path, '--repeat', '2', '--out', dir, '--junit', 'ci/repeat.xml', '--markdown', 'ci/repeat.md', '--quiet'],
      { cwd: folder.dir, env: { GITHUB_STEP_SUMMARY: stepSummary }, target: await emulators.start() },
    );
    expect(result.code, result.stderr).toBe(99);
    const runs = [1, 2].map((i) => readSummary(join(dir, `repeat-${i}`)) as RunSummary);

    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(
      readFileSync(join(folder.dir, 'ci', 'repeat.xml'), 'utf8'),
    );
    const suites = (
      Array.isArray(doc.testsuites.testsuite) ? doc.testsuites.testsuite : [doc.testsuites.testsuite]
    ) as JunitSuite[];
    const cases = (suite: JunitSuite) => (Array.isArray(suite.testcase) ? suite.testcase : [suite.testcase]);
    expect(suites.map((s) => s['@name'])).toEqual(['s/small-fast-8b/-']);
    expect(cases(suites[0] as JunitSuite).map((c) => c['@name'])).toEqual([
      'repeat 1: requests answered',
      'repeat 1: error_rate < 0.5',
      'repeat 1: ttft_ms.p50 < 0.001',
      'repeat 2: requests answered',
      'repeat 2: error_rate < 0.5',
      'repeat 2: ttft_ms.p50 < 0.001',
    ]);
    expect(doc.testsuites['@tests']).toBe('6');
    expect(doc.testsuites['@failures']).toBe('2');
    const failed = cases(suites[0] as JunitSuite).filter((c) => c.failure !== undefined);
    expect(failed.map((c) => c.failure?.['@message'])).toEqual(
      runs.map((run) => `threshold failed: ttft_ms.p50 < 0.001 (actual ${run.thresholds[1]?.actual})`),
    );

    const markdown = readFileSync(join(folder.dir, 'ci', 'repeat.md'), 'utf8');
    expect(markdown).toMatch(/^### inferbench run ci-repeat x 2: ❌ 2 threshold\(s\) failed$/m);
    runs.forEach((run, i) => {
      const group = run.groups[0]!;
      expect(markdown).toContain(
        `| ${i + 1} | ${run.run_id} | ${group.key} | ${group.requests.ok} | ${group.requests.failed} |`,
      );
    });
    // One summary for the repeated run, all repeats in it: not one per repeat.
    expect(markdown.match(/^### /gm)).toHaveLength(1);
    expect(readFileSync(stepSummary, 'utf8')).toBe(`# earlier step\n${markdown}\n`);
  }, 90_000);
});
