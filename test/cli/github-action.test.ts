// @module-tag slow
/**
 * The GitHub Action without GitHub: reads action.yml (its inputs, outputs and steps) and runs its steps'
 * `run:` scripts with `bash --noprofile --norc -eo pipefail` as a runner does, `${{ inputs.x }}`,
 * `${{ github.action_path }}` and `${{ steps.x.outputs.y }}` replaced as GitHub replaces them, in the
 * environment GitHub gives a composite action's steps (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT,
 * GITHUB_WORKSPACE, GITHUB_ACTION_PATH, the step's `env:`). The install step (npm ci and the build) is
 * skipped: the steps use the dist/ of this checkout, built before the tests run. Three cases, each a run
 * of a few seconds against a baseline made once: a pass (against an emulator of this process through
 * `base-url` and `api-key-env`; the key appears nowhere), a regression (the embedded emulator made slower
 * through `args: --set target.emulator_config=...`; exit 99, the regression and its p-value in comment.md)
 * and an invalid run (arrivals dropped at max_concurrency; exit 5).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { invalidEvidence } from '../../src/aggregate/run-validity.js';
import {
  ARRIVAL_MODEL,
  startArrivalRecordingServer,
  type ArrivalRecordingServer,
} from '../helpers/arrival-recording-server.js';
import { runCliInProcess } from '../helpers/cli.js';
import { compareReadyProfile, slowEmulatorConfig, TAILS_OFF } from '../helpers/compare-ready-runs.js';
import { EMULATOR_API_KEY, useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

const ROOT = resolve(import.meta.dirname, '../..');

interface ActionStep {
  readonly id?: string;
  readonly name?: string;
  readonly shell?: string;
  readonly run?: string;
  readonly env?: Record<string, string>;
  readonly 'working-directory'?: string;
}

interface ActionFile {
  readonly name: string;
  readonly inputs: Record<
    string,
    { readonly required?: boolean; readonly default?: string; readonly description: string }
  >;
  readonly outputs: Record<string, { readonly value: string; readonly description: string }>;
  readonly runs: { readonly using: string; readonly steps: readonly ActionStep[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionFile;

interface ActionResult {
  readonly code: number;
  readonly log: string;
  /** The action's outputs, as its `outputs:` map them from the steps'. */
  readonly outputs: Record<string, string>;
  readonly stepSummary: string;
  readonly githubOutput: string;
}

/** GITHUB_OUTPUT's `name<<delimiter` blocks (and `name=value` lines) -> a map. */
function parseGithubOutput(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2] as string, i + 1);
      expect(end, `the output ${block[1]} ends with its delimiter`).toBeGreaterThan(i);
      outputs[block[1] as string] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) {
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return outputs;
}

/** Replaces `${{ expr }}` as GitHub does for the expressions action.yml uses; any other fails the test. */
function expand(
  text: string,
  context: { inputs: Record<string, string>; steps: Record<string, Record<string, string>> },
): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_all, expr: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expr);
    if (input) return context.inputs[input[1] as string] ?? '';
    if (expr === 'github.action_path') return ROOT;
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
    if (output) return context.steps[output[1] as string]?.[output[2] as string] ?? '';
    throw new Error(`action.yml uses an expression this test does not know: ${expr}`);
  });
}

function runBash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; log: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env });
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, log }));
  });
}

/**
 * Runs the action's steps (all but the install step) in a fresh workspace under `dir`, as GitHub would
 * with `with: given` and the job's `env`.
 */
async function runAction(
  workspace: string,
  given: Record<string, string>,
  jobEnv: Record<string, string> = {},
): Promise<ActionResult> {
  mkdirSync(workspace, { recursive: true });
  const stepSummary = join(workspace, '..', `${workspace.split('/').pop()}-summary.md`);
  writeFileSync(stepSummary, '');
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) inputs[name] = given[name] ?? spec.default ?? '';
  const steps: Record<string, Record<string, string>> = {};
  let log = '';
  let code = 0;
  for (const [index, step] of action.runs.steps.entries()) {
    // Skipped: npm ci and the build; this checkout's dist/ is built (npm run build) before the tests run.
    if (step.id === 'install') continue;
    const githubOutput = join(workspace, '..', `${workspace.split('/').pop()}-output-${index}`);
    writeFileSync(githubOutput, '');
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(String(value), { inputs, steps })]),
    );
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: ROOT,
      GITHUB_STEP_SUMMARY: stepSummary,
      GITHUB_OUTPUT: githubOutput,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'octo/app',
      GITHUB_RUN_ID: '4242',
      ...jobEnv,
      ...stepEnv,
    };
    expect(step.shell).toBe('bash');
    const cwd =
      step['working-directory'] === undefined ? workspace : expand(step['working-directory'], { inputs, steps });
    const result = await runBash(expand(step.run ?? '', { inputs, steps }), cwd, env);
    log += result.log;
    if (step.id !== undefined) steps[step.id] = parseGithubOutput(readFileSync(githubOutput, 'utf8'));
    code = result.code;
    if (code !== 0) break;
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, spec]) => [name, expand(spec.value, { inputs, steps })]),
  );
  const githubOutput = readdirSync(join(workspace, '..'))
    .filter((name) => name.startsWith(`${workspace.split('/').pop()}-output-`))
    .map((name) => readFileSync(join(workspace, '..', name), 'utf8'))
    .join('');
  return { code, log, outputs, stepSummary: readFileSync(stepSummary, 'utf8'), githubOutput };
}

/** Every file under `dir`, as text. */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path, 'utf8'))
    .join('\n');
}

const folder = useRunFolder('inferbench-action-');
const emulators = useInProcessEmulators();

/** 20 requests: a 400 ms TTFT floor against ~20 ms separates every one of them (p far below alpha). */
const REQUESTS = 20;

// The tiny tokenizer: token counting is not this test's subject (no run builds o200k's vocabulary).
const PROFILE = compareReadyProfile(
  'action-ci',
  REQUESTS,
  `thresholds: ["error_rate < 0.05"]\ntarget: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }\n`,
);

const SLOW_CONFIG = slowEmulatorConfig(400);

/** The compare-args input: the same flags as one string. */
const TAILS_OFF_INPUT = TAILS_OFF.join(' ');

let baseline: string;
let arrivals: ArrivalRecordingServer;

beforeAll(async () => {
  writeFileSync(join(folder.dir, 'ci.yaml'), PROFILE);
  writeFileSync(join(folder.dir, 'slow.yaml'), SLOW_CONFIG);
  baseline = join(folder.dir, 'baseline-artifact', 'run');
  const made = await runCliInProcess(['run', join(folder.dir, 'ci.yaml'), '--out', baseline, '--quiet'], {
    cwd: folder.dir,
    target: await emulators.start(),
  });
  expect(made.code, made.stderr).toBe(0);
  // Each answer takes 300 ms: with one request in flight at most, ~3 of 20 arrivals a second are sent.
  arrivals = await startArrivalRecordingServer(300);
});
afterAll(async () => {
  await arrivals?.close();
});

describe('action.yml', () => {
  it('is a composite action with the documented inputs and outputs, installing from the npm registry only', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual(
      ['api-key-env', 'args', 'base-url', 'baseline', 'compare-args', 'fail-on', 'profile'].sort(),
    );
    expect(action.inputs.profile?.required).toBe(true);
    expect(action.inputs['fail-on']?.default).toBe('regression,threshold,invalid');
    expect(Object.keys(action.outputs)).toEqual(
      expect.arrayContaining(['verdict', 'run-dir', 'report', 'comment', 'compare-report']),
    );
    const install = action.runs.steps.find((step) => step.id === 'install');
    expect(install?.run).toMatch(/^npm ci --ignore-scripts .*&& npm run build$/);
    expect(install?.['working-directory']).toMatch(/^\$\{\{ github\.action_path \}\}$/);
    // The key is never an input: only the name of its variable.
    expect(Object.keys(action.inputs).filter((name) => /key/.test(name))).toEqual(['api-key-env']);
  });
});

describe('the action run as GitHub runs it', () => {
  it('passes a run like its baseline: exit 0, verdict pass, summary and comment written, the key nowhere', async () => {
    const workspace = join(folder.dir, 'ws-pass');
    const target = await emulators.start();
    const result = await runAction(
      workspace,
      {
        profile: join(folder.dir, 'ci.yaml'),
        // The folder a downloaded artifact lands in, the run folder one below it.
        baseline: join(folder.dir, 'baseline-artifact'),
        'base-url': target.url,
        'api-key-env': 'CI_BENCH_KEY',
        args: '--quiet',
        'compare-args': TAILS_OFF_INPUT,
      },
      { CI_BENCH_KEY: EMULATOR_API_KEY },
    );
    const runDir = result.outputs['run-dir'] as string;
    expect(runDir.startsWith(join(workspace, 'reports'))).toBe(true);
    // A loaded machine may make the client its own bottleneck: then the run is not valid evidence and says so.
    const reasons = invalidEvidence(readSummary(runDir));
    expect(result.code, result.log).toBe(reasons.length > 0 ? 5 : 0);
    expect(result.outputs.verdict).toBe(reasons.length > 0 ? 'invalid' : 'pass');
    expect(result.outputs.report).toBe(join(runDir, 'report.html'));
    expect(result.outputs['compare-report']).toBe(join(runDir, 'compare.html'));
    expect(result.outputs['exit-code']).toBe(String(result.code));

    const comment = readFileSync(result.outputs.comment as string, 'utf8');
    expect(result.outputs.comment).toBe(join(runDir, 'comment.md'));
    expect(comment).toContain('<!-- inferbench-ci-comment -->');
    if (reasons.length === 0) expect(comment).toContain('### inferbench action-ci: ✅ pass');
    expect(comment).toMatch(/\| baseline \| no significant regression in \d+ checks against \d{8}T\d{6}Z-action-ci \|/);
    expect(comment).toContain('| thresholds | all 1 passed |');
    expect(comment).toContain(`- run folder: \`reports/${runDir.split('/').pop()}\``);
    expect(comment).toContain('- workflow run and its artifacts: https://github.com/octo/app/actions/runs/4242');

    // The step summary: run's markdown, compare's, then the action's verdict.
    expect(result.stepSummary).toMatch(/### inferbench run action-ci: /);
    expect(result.stepSummary).toContain('### inferbench compare: ✅ no regression');
    expect(result.stepSummary).toContain(
      `**inferbench action: verdict \`${result.outputs.verdict}\`, exit ${result.code}**`,
    );

    // The run used the key from the variable named (else the emulator would have answered 401).
    expect(readSummary(runDir).groups[0]?.requests.ok).toBe(REQUESTS);
    for (const text of [result.log, result.stepSummary, result.githubOutput, allText(workspace)])
      expect(text).not.toContain(EMULATOR_API_KEY);
  });

  it('fails a run slower than its baseline: exit 99, verdict regression, the regressions and p-values in comment.md', async () => {
    const workspace = join(folder.dir, 'ws-regression');
    const result = await runAction(workspace, {
      profile: join(folder.dir, 'ci.yaml'),
      baseline,
      // The embedded emulator (no base-url), made slower than the baseline's through args.
      args: `--set "target.emulator_config=${join(folder.dir, 'slow.yaml')}"`,
      'compare-args': TAILS_OFF_INPUT,
    });
    expect(result.code, result.log).toBe(99);
    expect(result.outputs.verdict).toBe('regression');
    const comment = readFileSync(result.outputs.comment as string, 'utf8');
    expect(comment).toContain('### inferbench action-ci: ❌ regression');
    expect(comment).toMatch(/\| baseline \| \d+ regression\(s\) against \d{8}T\d{6}Z-action-ci \| \*\*yes\*\* \|/);
    expect(comment).toContain('#### Regressions');
    expect(comment).toContain('| group | metric | baseline | candidate | change | p (Holm) | tolerance | verdict |');
    // The TTFT floor went from ~20 ms to 400 ms: its p50 is a regression with a p-value far below alpha.
    const row = comment.split('\n').find((line) => line.startsWith('| steady/small-fast-8b/- | ttft\\_ms.p50 |'));
    expect(row, comment).toBeDefined();
    const cells = (row as string).split(' | ');
    expect(cells[7]).toBe('**REGRESSION** |');
    // '<1e-6' is escaped in a markdown cell.
    expect(Number(cells[5]?.replace(/^&lt;/, ''))).toBeLessThan(0.05);
    expect(result.stepSummary).toContain('### inferbench compare: ❌');
  });

  it('fails a run that is not valid evidence with exit 5, and passes it when fail-on leaves invalid out', async () => {
    const profile = join(folder.dir, 'drops.yaml');
    writeFileSync(
      profile,
      `name: drops
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
scenarios:
  - name: s
    models: [${ARRIVAL_MODEL}]
    load: { mode: rate, rate: 20, arrival: constant, max_concurrency: 1 }
    duration: 1s
    request: { max_completion_tokens: 8 }
    prompt: { input_tokens: 16 }
`,
    );
    const given = { profile, 'base-url': arrivals.url };
    const result = await runAction(join(folder.dir, 'ws-invalid'), given);
    expect(result.code, result.log).toBe(5);
    expect(result.outputs.verdict).toBe('invalid');
    const comment = readFileSync(result.outputs.comment as string, 'utf8');
    expect(comment).toContain('### inferbench drops: ⚠️ not valid evidence');
    expect(comment).toMatch(
      /\| validity \| not valid evidence: .*arrivals were dropped at max\\_concurrency.* \| \*\*yes\*\* \|/,
    );
    expect(comment).toContain('| baseline | none given: not compared |');

    const allowed = await runAction(join(folder.dir, 'ws-invalid-allowed'), {
      ...given,
      'fail-on': 'regression, threshold',
    });
    expect(allowed.code, allowed.log).toBe(0);
    expect(allowed.outputs.verdict).toBe('invalid');
    expect(readFileSync(allowed.outputs.comment as string, 'utf8')).toContain('no (invalid is not in fail-on)');
  });
});
