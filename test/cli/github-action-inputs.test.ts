/**
 * The GitHub Action's inputs and exit code (cli/github-action.ts), without a run: INPUT_* read as GitHub
 * names them, `args` split as a shell splits words without expanding anything, `fail-on` checked, the
 * exit code of the first failure fail-on names, and a baseline found inside a downloaded artifact.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  actionExitCode,
  findRunFolder,
  parseFailOn,
  quoteForLog,
  readActionInputs,
  runGithubAction,
  splitArgs,
} from '../../src/cli/github-action.js';
import type { RunSummary } from '../../src/metrics/run-summary.js';
import { CI_FAILURES, type CiFindings } from '../../src/report/ci-comment.js';
import type { CompareResult } from '../../src/report/compare/compare-runs.js';
import { MemoryStream } from '../helpers/cli.js';

describe('splitArgs', () => {
  it('splits on whitespace and newlines, keeps quoted text whole and expands nothing', () => {
    expect(splitArgs('')).toEqual([]);
    expect(splitArgs('  --quiet\n--set a=1  ')).toEqual(['--quiet', '--set', 'a=1']);
    expect(splitArgs(`--set "name=two words" --set 'x=$HOME \\n' a\\ b ""`)).toEqual([
      '--set',
      'name=two words',
      '--set',
      'x=$HOME \\n',
      'a b',
      '',
    ]);
    expect(splitArgs('"say \\"hi\\""')).toEqual(['say "hi"']);
    expect(splitArgs('$(rm -rf /) `id`')).toEqual(['$(rm', '-rf', '/)', '`id`']);
    expect(() => splitArgs('--set "open')).toThrow(/unterminated " quote/);
  });

  it('names an unterminated quote without printing a key in a URL of the text', () => {
    expect(() => splitArgs('--base-url "https://api.example.com/v1?api-key=s3cret')).toThrow(
      /unterminated " quote in: --base-url "https:\/\/api\.example\.com\/v1\?api-key=REDACTED$/,
    );
  });
});

describe('quoteForLog', () => {
  it("hides a URL's user and password and quotes what a shell would split", () => {
    expect(quoteForLog('https://me:s3cret@api.example.com/x')).toBe('https://api.example.com/x');
    expect(quoteForLog('--set')).toBe('--set');
    expect(quoteForLog("name=it's two")).toBe(`'name=it'\\''s two'`);
  });

  it('hides a key in the query string of a base URL or of a URL inside an argument', () => {
    // Quoted: `?` and `&` are a shell's.
    expect(quoteForLog('https://api.example.com/v1?api-key=s3cret')).toBe(
      "'https://api.example.com/v1?api-key=REDACTED'",
    );
    expect(quoteForLog('--base-url=https://h.example/v1?key=s3cret&x=1')).toBe(
      "'--base-url=https://h.example/v1?key=REDACTED&x=1'",
    );
    expect(quoteForLog('--set=target.base_url=http://u:pw@h:8000/v1?token=s3cret')).toBe(
      "'--set=target.base_url=http://h:8000/v1?token=REDACTED'",
    );
    expect(quoteForLog('https://api.example.com/v1?model=x')).toBe("'https://api.example.com/v1?model=x'");
  });
});

describe('parseFailOn', () => {
  it('reads a comma list, all three when empty, nothing with none; refuses other words', () => {
    expect([...parseFailOn('')]).toEqual(['regression', 'invalid', 'threshold']);
    expect([...parseFailOn(' Regression , threshold')]).toEqual(['regression', 'threshold']);
    expect([...parseFailOn('none')]).toEqual([]);
    expect(() => parseFailOn('regression,slow')).toThrow(/unknown "slow"/);
  });
});

describe('readActionInputs', () => {
  it("reads INPUT_* with GitHub's hyphenated names or action.yml's underscored ones", () => {
    const inputs = readActionInputs({
      INPUT_PROFILE: ' p.yaml ',
      'INPUT_BASE-URL': 'http://h:1',
      INPUT_API_KEY_ENV: 'MY_KEY',
      INPUT_ARGS: '--quiet',
      INPUT_COMPARE_ARGS: '--alpha 0.01',
      INPUT_FAIL_ON: 'invalid',
    });
    expect(inputs).toMatchObject({
      profile: 'p.yaml',
      baseUrl: 'http://h:1',
      apiKeyEnv: 'MY_KEY',
      baseline: '',
      args: ['--quiet'],
      compareArgs: ['--alpha', '0.01'],
    });
    expect([...inputs.failOn]).toEqual(['invalid']);
  });

  it('refuses no profile, a key where its variable name belongs, and --repeat', () => {
    expect(() => readActionInputs({})).toThrow(/needs a profile/);
    expect(() => readActionInputs({ INPUT_PROFILE: 'p.yaml', INPUT_API_KEY_ENV: 'sk-abc.def' })).toThrow(
      /NAME of an environment variable/,
    );
    expect(() => readActionInputs({ INPUT_PROFILE: 'p.yaml', INPUT_ARGS: '--repeat 3' })).toThrow(/--repeat/);
  });
});

describe('actionExitCode', () => {
  const summary = (failed: boolean) =>
    ({ thresholds: [{ expression: 'x', group: 'g', actual: 1, passed: !failed }] }) as unknown as RunSummary;
  const regressions = { regressions: 2, notCalled: 0 } as unknown as CompareResult;
  const base: CiFindings = { summary: summary(false), invalid: [], compare: null, baseline: null, error: null };
  const all = parseFailOn('');

  it('is 0 on a pass, 99 on a regression or threshold, 5 on invalid evidence, each only when fail-on names it', () => {
    expect(actionExitCode(base, all)).toBe(0);
    expect(actionExitCode({ ...base, compare: regressions }, all)).toBe(99);
    expect(actionExitCode({ ...base, summary: summary(true) }, all)).toBe(99);
    expect(actionExitCode({ ...base, invalid: ['client-bound'] }, all)).toBe(5);
    expect(actionExitCode({ ...base, invalid: ['client-bound'], summary: summary(true) }, all)).toBe(5);
    // A regression compare called is real even from a client-bound run.
    expect(actionExitCode({ ...base, invalid: ['client-bound'], compare: regressions }, all)).toBe(99);
    expect(actionExitCode({ ...base, compare: regressions }, parseFailOn('invalid,threshold'))).toBe(0);
    expect(actionExitCode({ ...base, invalid: ['x'] }, parseFailOn('regression,threshold'))).toBe(0);
    expect(actionExitCode({ ...base, invalid: ['x'], summary: summary(true) }, parseFailOn('threshold'))).toBe(99);
  });

  it("is the failing step's own code when the run or the comparison could not be done, whatever fail-on says", () => {
    expect(actionExitCode({ ...base, error: { step: 'run', exitCode: 3 } }, parseFailOn('none'))).toBe(3);
    expect(actionExitCode({ ...base, error: { step: 'compare', exitCode: 2 } }, all)).toBe(2);
  });
});

describe('findRunFolder', () => {
  const root = mkdtempSync(join(tmpdir(), 'inferbench-action-baseline-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const run = (path: string, startedAt: string): string => {
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, 'summary.json'), JSON.stringify({ started_at: startedAt }));
    return path;
  };

  it('takes a run folder as is, finds the one inside an artifact, and the newest of several', () => {
    const stderr = new MemoryStream();
    const direct = run(join(root, 'direct'), '2026-01-01T00:00:00Z');
    expect(findRunFolder(direct, { stderr })).toBe(direct);
    const nested = run(join(root, 'artifact', 'reports', '20260101T000000Z-ci'), '2026-01-01T00:00:00Z');
    expect(findRunFolder(join(root, 'artifact'), { stderr })).toBe(nested);
    const newer = run(join(root, 'artifact', 'reports', '20260102T000000Z-ci'), '2026-01-02T00:00:00Z');
    expect(findRunFolder(join(root, 'artifact'), { stderr })).toBe(newer);
    expect(stderr.text).toContain('holds 2 runs; comparing with the newest');
    expect(() => findRunFolder(join(root, 'missing'), { stderr })).toThrow(/does not exist/);
    mkdirSync(join(root, 'empty', 'a'), { recursive: true });
    expect(() => findRunFolder(join(root, 'empty'), { stderr })).toThrow(/holds no run/);
  });
});

describe('action.yml', () => {
  it("describes the verdict's order as the code decides it (CI_FAILURES: regression, invalid, threshold)", () => {
    const action = parse(readFileSync(resolve(import.meta.dirname, '../../action.yml'), 'utf8')) as {
      outputs: Record<string, { description: string }>;
    };
    const description = action.outputs['verdict']!.description;
    expect(description).toContain(`pass, ${CI_FAILURES.join(', ')} (the first found`);
    const order = CI_FAILURES.map((kind) => description.indexOf(kind));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});

describe('a bad input', () => {
  it('exits 2 naming the input, before any run', async () => {
    const stderr = new MemoryStream();
    const code = await runGithubAction({
      stdout: new MemoryStream(),
      stderr,
      env: { INPUT_PROFILE: 'missing.yaml', INPUT_FAIL_ON: 'regression,slow' },
      cwd: tmpdir(),
      interrupt: new AbortController().signal,
      exitCode: 0,
    });
    expect(code).toBe(2);
    expect(stderr.text).toContain('inferbench action: input `fail-on`: unknown "slow"');
    expect(stderr.text).not.toContain('inferbench run');
  });

  it('still writes verdict=error and the exit code to $GITHUB_OUTPUT (fail-on, args, api-key-env)', async () => {
    for (const bad of [
      { INPUT_FAIL_ON: 'regression,slow' },
      { INPUT_ARGS: '--set "open' },
      { 'INPUT_API-KEY-ENV': 'sk-not-a-name' },
    ]) {
      const dir = mkdtempSync(join(tmpdir(), 'inferbench-action-output-'));
      const output = join(dir, 'github-output');
      const summary = join(dir, 'step-summary');
      try {
        const code = await runGithubAction({
          stdout: new MemoryStream(),
          stderr: new MemoryStream(),
          env: { INPUT_PROFILE: 'missing.yaml', GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: summary, ...bad },
          cwd: dir,
          interrupt: new AbortController().signal,
          exitCode: 0,
        });
        expect(code).toBe(2);
        const outputs = Object.fromEntries(
          [...readFileSync(output, 'utf8').matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)].map((m) => [m[1], m[3]]),
        );
        expect(outputs, JSON.stringify(bad)).toMatchObject({ verdict: 'error', 'exit-code': '2', 'run-dir': '' });
        expect(readFileSync(summary, 'utf8')).toContain('verdict `error`, exit 2');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
