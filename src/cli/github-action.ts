/**
 * The GitHub Action (action.yml at the repository root): reads its inputs from INPUT_* (action.yml maps
 * each input there), runs `inferbench run` and, with a baseline, `inferbench compare` in this process
 * (both append their markdown to $GITHUB_STEP_SUMMARY as usual), writes comment.md into the run folder
 * (report/ci-comment.ts), sets the outputs in $GITHUB_OUTPUT and returns the exit code `fail-on` asks for:
 * the code of the first failure found (in the order of CI_FAILURES in report/ci-comment.ts: regression,
 * invalid, threshold) that it names (99 regression or threshold, 5 invalid), 0 when none is, and the
 * failing command's own code when the run or the comparison could not be done.
 *
 * The API key is named by `api-key-env`, never given: it reaches no input, output, log or file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { invalidEvidence } from '../aggregate/run-validity.js';
import { InferbenchError, isInferbenchError } from '../errors.js';
import type { RunSummary } from '../metrics/run-summary.js';
import {
  CI_FAILURES,
  ciFailuresOf,
  ciVerdictOf,
  formatCiComment,
  type CiFailure,
  type CiFindings,
} from '../report/ci-comment.js';
import { formatCompareTable } from '../report/compare/compare-table.js';
import type { CompareResult } from '../report/compare/compare-runs.js';
import { loadRun } from '../report/compare/load-run.js';
import { withoutCredentials } from '../report/compare/target-label.js';
import { makeRunId } from '../runner/run-id.js';
import type { CliContext } from './context.js';
import { EXIT, EXIT_CODE_BY_ERROR } from './exit-codes.js';
import { runCli } from './run-cli.js';

export interface ActionInputs {
  readonly profile: string;
  /** A run folder, or a folder holding one (a downloaded artifact); empty: no comparison. */
  readonly baseline: string;
  readonly baseUrl: string;
  /** The NAME of the variable holding the key. */
  readonly apiKeyEnv: string;
  /** Extra arguments of `run`. */
  readonly args: readonly string[];
  /** Extra arguments of `compare`. */
  readonly compareArgs: readonly string[];
  readonly failOn: ReadonlySet<CiFailure>;
}

/**
 * An input as GitHub names its variable: INPUT_ and the name in capitals (GitHub keeps a hyphen:
 * INPUT_BASE-URL; action.yml maps INPUT_BASE_URL, which a shell can name). Empty when not given.
 */
function input(env: CliContext['env'], name: string): string {
  const upper = `INPUT_${name.toUpperCase()}`;
  return (env[upper] ?? env[upper.replace(/-/g, '_')] ?? '').trim();
}

/** The inputs, checked: a profile is required, fail-on names only what may fail, args split as a shell would. */
export function readActionInputs(env: CliContext['env']): ActionInputs {
  const profile = input(env, 'profile');
  if (profile === '')
    throw new InferbenchError('BAD_USAGE', 'the action needs a profile (input `profile`)', {
      hint: 'with: { profile: profiles/ci.yaml }',
    });
  const apiKeyEnv = input(env, 'api-key-env');
  if (apiKeyEnv !== '' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv))
    throw new InferbenchError('BAD_USAGE', 'input `api-key-env` must be the NAME of an environment variable', {
      hint: 'e.g. api-key-env: INFERENCE_API_KEY, with the key in that variable of the step env (from a secret)',
    });
  const args = splitArgs(input(env, 'args'));
  if (args.some((arg) => arg === '--repeat' || arg.startsWith('--repeat=')))
    throw new InferbenchError('BAD_USAGE', 'the action compares one run: `--repeat` is not for its `args`', {
      hint: 'run `inferbench run --repeat N` in a step of its own',
    });
  return {
    profile,
    baseline: input(env, 'baseline'),
    baseUrl: input(env, 'base-url'),
    apiKeyEnv,
    args,
    compareArgs: splitArgs(input(env, 'compare-args')),
    failOn: parseFailOn(input(env, 'fail-on')),
  };
}

/** `regression,threshold,invalid` (any order, spaces allowed); empty: all three; `none`: nothing fails. */
export function parseFailOn(text: string): ReadonlySet<CiFailure> {
  if (text === '') return new Set(CI_FAILURES);
  const words = text
    .split(/[\s,]+/)
    .map((word) => word.trim().toLowerCase())
    .filter((word) => word !== '');
  if (words.length === 1 && words[0] === 'none') return new Set();
  const unknown = words.filter((word) => !(CI_FAILURES as readonly string[]).includes(word));
  if (unknown.length > 0)
    throw new InferbenchError('BAD_USAGE', `input \`fail-on\`: unknown ${unknown.map((w) => `"${w}"`).join(', ')}`, {
      hint: `a comma list of ${CI_FAILURES.join(', ')} (default all three), or none`,
    });
  return new Set(words as CiFailure[]);
}

/**
 * Splits a command line as a shell would split words, without expanding anything: whitespace (newlines
 * too) separates, single quotes keep text as is, double quotes keep it but for \" and \\, a backslash
 * outside quotes keeps the next character.
 */
export function splitArgs(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word = `${word ?? ''}${c}`;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) word = `${word ?? ''}${text[++i]}`;
      else word = `${word ?? ''}${c}`;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote !== null)
    throw new InferbenchError('BAD_USAGE', `unterminated ${quote} quote in: ${withoutSecrets(text)}`, {
      hint: 'close the quote',
    });
  if (word !== null) words.push(word);
  return words;
}

/** The exit code: the failing step's own, else that of the first failure found that fail-on names, else 0. */
export function actionExitCode(findings: CiFindings, failOn: ReadonlySet<CiFailure>): number {
  if (findings.error !== null) return findings.error.exitCode;
  const failing = ciFailuresOf(findings).find((kind) => failOn.has(kind));
  if (failing === undefined) return EXIT.ok;
  return failing === 'invalid' ? EXIT.invalid : EXIT.thresholdFailed;
}

/** Exit codes of `run` and `compare` that mean "it ran and was judged" (a verdict follows from its results). */
const JUDGED: readonly number[] = [EXIT.ok, EXIT.thresholdFailed, EXIT.invalid];

/** The whole action; returns its exit code. */
export async function runGithubAction(ctx: CliContext): Promise<number> {
  let inputs: ActionInputs;
  try {
    inputs = readActionInputs(ctx.env);
  } catch (error) {
    // No run: the outputs still say so, as action.yml and docs/ci.md promise.
    const exitCode = reportError(error, ctx);
    await writeStepSummary(ctx, 'error', exitCode);
    await writeGithubOutputs(ctx, {
      verdict: 'error',
      'run-dir': '',
      report: '',
      comment: '',
      'compare-report': '',
      'exit-code': String(exitCode),
    });
    return exitCode;
  }
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(ctx.cwd, p));
  const givenOut = outOf(inputs.args);
  const runDir = abs(
    givenOut ?? join('reports', makeRunId(Date.now(), basename(inputs.profile, extname(inputs.profile)))),
  );
  const runArgv = [
    'run',
    inputs.profile,
    ...(givenOut === null ? ['--out', runDir] : []),
    ...(inputs.baseUrl === '' ? [] : ['--base-url', inputs.baseUrl]),
    ...(inputs.apiKeyEnv === '' ? [] : ['--api-key-env', inputs.apiKeyEnv]),
    ...inputs.args,
  ];
  ctx.stderr.write(`inferbench action: inferbench ${runArgv.map(quoteForLog).join(' ')}\n`);
  const runCode = await runCli(runArgv, { ...ctx, exitCode: 0 });
  const summary = await loadSummary(runDir);

  let error: CiFindings['error'] = null;
  if (!JUDGED.includes(runCode) || summary === null)
    error = { step: 'run', exitCode: JUDGED.includes(runCode) ? EXIT.internal : runCode };
  let compare: CompareResult | null = null;
  let compareReport: string | null = null;
  if (error === null && inputs.baseline !== '') {
    const compared = await compareWithBaseline(abs(inputs.baseline), runDir, inputs.compareArgs, ctx);
    if ('exitCode' in compared) error = { step: 'compare', exitCode: compared.exitCode };
    else ({ result: compare, html: compareReport } = compared);
  }

  const findings: CiFindings = {
    summary,
    invalid: summary === null ? [] : invalidEvidence(summary),
    compare,
    baseline: inputs.baseline === '' ? null : inputs.baseline,
    error,
  };
  const exitCode = actionExitCode(findings, inputs.failOn);
  const verdict = ciVerdictOf(findings);
  const report = join(runDir, 'report.html');
  const commentPath = join(runDir, 'comment.md');
  const shown = (path: string): string => {
    const base = ctx.env.GITHUB_WORKSPACE ? abs(ctx.env.GITHUB_WORKSPACE) : ctx.cwd;
    const rel = relative(base, path);
    return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
  };
  const comment = formatCiComment(findings, inputs.failOn, exitCode, {
    runDir: summary === null ? null : shown(runDir),
    report: existsSync(report) ? shown(report) : null,
    compareReport: compareReport === null ? null : shown(compareReport),
    workflowRunUrl: workflowRunUrl(ctx.env),
  });
  await mkdir(runDir, { recursive: true });
  await writeFile(commentPath, comment, 'utf8');

  await writeStepSummary(ctx, verdict, exitCode);
  await writeGithubOutputs(ctx, {
    verdict,
    'run-dir': runDir,
    report: existsSync(report) ? report : '',
    comment: commentPath,
    'compare-report': compareReport ?? '',
    'exit-code': String(exitCode),
  });
  const found = ciFailuresOf(findings);
  ctx.stderr.write(
    `inferbench action: verdict ${verdict}${found.length > 1 ? ` (found: ${found.join(', ')})` : ''}; fail-on ${[...inputs.failOn].join(',') || 'none'}; exit ${exitCode}; comment: ${commentPath}\n`,
  );
  return exitCode;
}

/** `--out DIR` or `--out=DIR` among the run's extra args, else null. */
function outOf(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--out' && i + 1 < args.length) return args[i + 1] as string;
    if (arg.startsWith('--out=')) return arg.slice('--out='.length);
  }
  return null;
}

async function loadSummary(runDir: string): Promise<RunSummary | null> {
  if (!existsSync(join(runDir, 'summary.json'))) return null;
  try {
    return (await loadRun(runDir)).summary;
  } catch {
    return null;
  }
}

/**
 * `inferbench compare <baseline> <run> --json` in this process: its JSON read back (the result of record),
 * its table printed for the log; or the exit code when it could not compare (the message is on stderr).
 */
async function compareWithBaseline(
  baselinePath: string,
  runDir: string,
  compareArgs: readonly string[],
  ctx: CliContext,
): Promise<{ readonly result: CompareResult; readonly html: string } | { readonly exitCode: number }> {
  let baselineDir: string;
  try {
    baselineDir = findRunFolder(baselinePath, ctx);
  } catch (error) {
    return { exitCode: reportError(error, ctx) };
  }
  const json = new TextSink();
  const argv = ['compare', baselineDir, runDir, '--json', ...compareArgs];
  ctx.stderr.write(`inferbench action: inferbench ${argv.map(quoteForLog).join(' ')}\n`);
  const code = await runCli(argv, { ...ctx, stdout: json, exitCode: 0 });
  if (!JUDGED.includes(code)) return { exitCode: code };
  const parsed = JSON.parse(json.text) as CompareResult & { readonly compare_html: string };
  ctx.stdout.write(`\n${formatCompareTable(parsed)}compare.html: ${parsed.compare_html}\n`);
  return { result: parsed, html: parsed.compare_html };
}

/**
 * The run folder in `path`: itself when it holds summary.json, else the one folder below it (two levels at
 * most: a downloaded artifact holds the uploaded folder or its contents) that does, the newest by its
 * start time when there are several.
 */
export function findRunFolder(path: string, ctx: Pick<CliContext, 'stderr'>): string {
  if (!existsSync(path))
    throw new InferbenchError('BAD_USAGE', `baseline ${path} does not exist`, {
      hint: 'give the run folder of the baseline, or the folder its artifact was downloaded to (input `baseline`); leave it empty to run without a comparison',
    });
  if (!statSync(path).isDirectory() || existsSync(join(path, 'summary.json'))) return path;
  const found: { dir: string; startedAt: string }[] = [];
  const visit = (dir: string, depth: number): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const child = join(dir, entry.name);
      if (existsSync(join(child, 'summary.json'))) found.push({ dir: child, startedAt: startedAtOf(child) });
      else if (depth < 2) visit(child, depth + 1);
    }
  };
  visit(path, 1);
  found.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  const newest = found[0];
  if (newest === undefined)
    throw new InferbenchError('BAD_USAGE', `baseline ${path} holds no run (no summary.json in it or below it)`, {
      hint: 'upload the run folder (the action output run-dir) as the baseline artifact',
    });
  if (found.length > 1)
    ctx.stderr.write(
      `inferbench action: baseline ${path} holds ${found.length} runs; comparing with the newest, ${newest.dir}\n`,
    );
  return newest.dir;
}

function startedAtOf(dir: string): string {
  try {
    const text = readFileSync(join(dir, 'summary.json'), 'utf8');
    const startedAt = (JSON.parse(text) as { started_at?: unknown }).started_at;
    return typeof startedAt === 'string' ? startedAt : '';
  } catch {
    return '';
  }
}

/** The action's line in $GITHUB_STEP_SUMMARY, after what the run and the comparison wrote there. */
async function writeStepSummary(ctx: CliContext, verdict: string, exitCode: number): Promise<void> {
  const path = ctx.env.GITHUB_STEP_SUMMARY;
  if (!path) return;
  const text = `**inferbench action: verdict \`${verdict}\`, exit ${exitCode}**\n\n`;
  await appendFile(isAbsolute(path) ? path : resolve(ctx.cwd, path), text, 'utf8');
}

/** GitHub's outputs file: one `name<<delimiter` block per output (safe for any value). */
async function writeGithubOutputs(ctx: CliContext, outputs: Readonly<Record<string, string>>): Promise<void> {
  const path = ctx.env.GITHUB_OUTPUT;
  if (!path) return;
  const delimiter = `inferbench_${randomUUID()}`;
  const text = Object.entries(outputs)
    .map(([name, value]) => `${name}<<${delimiter}\n${value}\n${delimiter}\n`)
    .join('');
  await appendFile(isAbsolute(path) ? path : resolve(ctx.cwd, path), text, 'utf8');
}

function workflowRunUrl(env: CliContext['env']): string | null {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: runId } = env;
  return server && repo && runId ? `${server}/${repo}/actions/runs/${runId}` : null;
}

/** Every URL in `text` without its user:password and with secret-looking query values redacted (target-label.ts). */
function withoutSecrets(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s'"]+/gi, (url) => withoutCredentials(url));
}

/**
 * An argument as the log shows it: a URL's user and password dropped and its secret-looking query values
 * (`?api-key=`, `?key=`, `?token=`) redacted, wherever the URL is in the argument (a base URL, `--set
 * target.base_url=...`), quoted when a shell would split or expand it.
 */
export function quoteForLog(arg: string): string {
  const shown = withoutSecrets(arg);
  return /^[\w@%+=:,./*-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
}

function reportError(error: unknown, ctx: CliContext): number {
  if (!isInferbenchError(error)) throw error;
  ctx.stderr.write(`inferbench action: ${error.message}\n`);
  if (error.hint) ctx.stderr.write(`  hint: ${error.hint}\n`);
  return EXIT_CODE_BY_ERROR[error.code];
}

/** Collects what a command writes to stdout (compare --json). */
class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    callback();
  }
}
