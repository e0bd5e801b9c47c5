/**
 * Random argv for every command (fast-check, fixed seed): known flags with hostile values, unknown flags,
 * stray words, missing and extra positionals. The CLI runs in-process and must answer with a usage
 * message and exit 2 (or do the valid thing), never exit 1 ("internal error") or print a stack trace.
 * Runs that happen to be valid are kept short: a 2-request profile of one model, and the test's Ctrl-C
 * after a while. Its target is an emulator in this process (the embedded child, a node start and a
 * tokenizer load per valid run, is not the subject); a `--base-url` in the argv still overrides it.
 * Slow on purpose (a fuzzer: 100 generated command lines, many of them whole runs): not in test:fast.
 * @module-tag slow
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { type RunTarget, useInProcessEmulators } from '../helpers/in-process-emulator.js';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { FUZZ_SEED, hostileValue, keyPaths, STACK_LINE, withValueAt } from '../helpers/hostile-values.js';
import { makeRunDir } from '../fixtures/make-run.js';
import { TINY_TOKENIZER } from '../helpers/run-folder.js';

let root: string;
let profile: string;
let runDir: string;
let target: RunTarget;
/** The target's keys, where a run (and the fuzz's `--api-key-env`) looks for them. */
let env: Record<string, string | undefined>;
const emulators = useInProcessEmulators();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'inferbench-fuzz-argv-'));
  target = await emulators.start();
  env = { PATH: process.env.PATH, INFERENCE_API_KEY: target.apiKey, INFERENCE_MANAGEMENT_KEY: target.managementKey };
  profile = join(root, 'tiny.yaml');
  writeFileSync(
    profile,
    `name: tiny\ntarget: { base_url: ${JSON.stringify(target.url)}, tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }\n` +
      'scenarios:\n  - name: s\n    models: [small-fast-8b]\n    requests: 2\n    load: { mode: concurrency, concurrency: 1 }\n    prompt: { input_tokens: 4, output_tokens: 2 }\n',
  );
  runDir = makeRunDir(join(root, 'run'), { seed: 5, requestsPerGroup: 10, withRequestsCsv: true }).dir;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The flags each command declares (src/cli/commands/*.ts), the positionals it takes, and extra exits it may give. */
const COMMANDS = {
  run: {
    flags: [
      'base-url',
      'api-key-env',
      'out',
      'quiet',
      'json',
      'repeat',
      'shard',
      'workers',
      'max-cost',
      'junit',
      'markdown',
      'start-at',
      'label',
    ],
    positionals: 1,
  },
  validate: { flags: ['set', 'json'], positionals: 1 },
  capacity: {
    flags: [
      'base-url',
      'api-key-env',
      'out',
      'quiet',
      'json',
      'steps',
      'reevaluate',
      'confirm',
      'max-cost',
      'workers',
      'slo',
    ],
    positionals: 1,
  },
  k8s: {
    flags: [
      'shards',
      'image',
      'start-at',
      'set',
      'base-url',
      'api-key-env',
      'secret',
      'results-pvc',
      'name',
      'cpu',
      'memory',
      'linger',
    ],
    positionals: 1,
  },
  report: { flags: ['out', 'quiet', 'json'], positionals: 1 },
  compare: {
    flags: ['alpha', 'tolerance', 'correction', 'pair', 'force', 'out', 'junit', 'markdown', 'quiet', 'json'],
    positionals: 2,
  },
  merge: { flags: ['out', 'force', 'quiet', 'json'], positionals: 2 },
  trend: {
    flags: ['out', 'order', 'alpha', 'tolerance', 'correction', 'force', 'quiet', 'json'],
    positionals: 3,
  },
  catalog: { flags: ['format', 'config'], positionals: 0 },
  serve: {
    flags: ['host', 'port', 'config', 'api-key', 'management-key', 'org', 'files', 'done-marker', 'workers'],
    positionals: 0,
  },
} as const;

type CommandName = keyof typeof COMMANDS;

/**
 * Exit codes besides 0 and 2 that a valid argv may give: a run against an unreachable --base-url (3),
 * a --max-cost refusal (4), a threshold or comparison (99), the test's Ctrl-C (130).
 */
const VALID_EXITS = [0, 3, 4, 99, 130];

/** A flag value: mostly hostile, sometimes a plausible one, so some argv are valid. */
const flagValue = fc.oneof(
  hostileValue().map((value) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined'))),
  fc.constantFrom('0', '1', '-1', '2/1', '1/2', 'auto', 'junk', 'http://', 'http://127.0.0.1:1', '1e999', 'NaN', '%'),
);

/** One argv element group: a known flag (with or without a value), an unknown flag, or a stray word. */
function argvPart(command: CommandName): fc.Arbitrary<string[]> {
  const known = fc.constantFrom(...COMMANDS[command].flags);
  return fc.oneof(
    { arbitrary: fc.tuple(known, flagValue).map(([flag, value]) => [`--${flag}`, value]), weight: 5 },
    { arbitrary: fc.tuple(known, flagValue).map(([flag, value]) => [`--${flag}=${value}`]), weight: 1 },
    { arbitrary: known.map((flag) => [`--${flag}`]), weight: 2 },
    {
      arbitrary: fc.constantFrom<string[]>(
        ['--bogus-flag'],
        ['--no-such-flag'],
        ['-x'],
        ['--'],
        ['-'],
        ['--help'],
        ['--version'],
        ['--set', 'a=b'],
      ),
      weight: 1,
    },
    { arbitrary: fc.string({ maxLength: 12 }).map((word) => [word]), weight: 1 },
  );
}

/** The positionals of a command: the right kind of path most of the time, a wrong one otherwise. */
function positionals(command: CommandName): fc.Arbitrary<string[]> {
  const right = () => (['report', 'compare', 'merge', 'trend'].includes(command) ? runDir : profile);
  const one = fc.oneof(
    { arbitrary: fc.constant(null).map(() => right()), weight: 3 },
    {
      arbitrary: fc.constantFrom(
        root,
        join(root, 'missing.yaml'),
        '',
        '-',
        '\u0000',
        join(root, 'run', 'requests.csv'),
      ),
      weight: 1,
    },
  );
  return fc.array(one, { minLength: 0, maxLength: COMMANDS[command].positionals + 1 });
}

const argv = fc
  .constantFrom(...(Object.keys(COMMANDS) as CommandName[]))
  .chain((command) =>
    fc
      .tuple(positionals(command), fc.array(argvPart(command), { maxLength: 4 }))
      .map(([paths, parts]) => [command, ...paths, ...parts.flat()]),
  );

describe('fuzz: random argv for every command', () => {
  it('exits 2 with a usage message (or does the valid thing), never an internal error', async () => {
    const exits: Record<number, number> = {};
    let caseNumber = 0;
    await fc.assert(
      fc.asyncProperty(argv, async (args) => {
        const out = join(root, `out-${++caseNumber}`);
        // Outputs go to the temp folder; serve returns as soon as it listens (interrupt already aborted).
        const withOut = args[0] === 'run' || args[0] === 'capacity' ? [...args, '--out', out] : args;
        const interrupt = args[0] === 'serve' ? AbortSignal.abort() : AbortSignal.timeout(8_000);
        const result = await runCliInProcess(withOut, { cwd: root, interrupt, env });
        expect(result.stderr).not.toMatch(STACK_LINE);
        expect(result.stderr).not.toMatch(/internal error/);
        expect([2, ...VALID_EXITS]).toContain(result.code);
        if (result.code === 2) expect(result.stderr).toMatch(/^inferbench: \S/m);
        exits[result.code] = (exits[result.code] ?? 0) + 1;
      }),
      { seed: FUZZ_SEED, numRuns: 100 },
    );
    expect(exits[2]).toBeGreaterThan(20);
  });

  it('names the profile file and the flag in usage errors', async () => {
    const missing = join(root, 'missing.yaml');
    const noFile = await runCliInProcess(['validate', missing], { cwd: root });
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain(missing);
    const badShard = await runCliInProcess(['run', profile, '--shard', '3/2'], { cwd: root });
    expect(badShard.code).toBe(2);
    expect(badShard.stderr).toContain('--shard');
    // A one-value flag given twice was an array the command did not expect: "internal error", exit 1.
    const twice = await runCliInProcess(['catalog', '--config', profile, '--config', profile], { cwd: root });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('--config takes one value, but was given 2 times');
    const setTwice = await runCliInProcess(['validate', profile, '--set', 'name=a', '--set', 'name=b'], { cwd: root });
    expect(setTwice.code).toBe(0);
    // A repeatable flag with nargs 1 given no value: yargs's own error, a usage error (exit 2), not an internal one.
    for (const command of [
      ['compare', runDir, runDir, '--tolerance'],
      ['trend', runDir, runDir, '--tolerance'],
    ]) {
      const noValue = await runCliInProcess(command, { cwd: root });
      expect(noValue.code, noValue.stderr).toBe(2);
      expect(noValue.stderr).toBe('inferbench: Not enough arguments following: tolerance\n');
    }
    const unknown = await runCliInProcess(['report', runDir, '--bogus-flag'], { cwd: root });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/bogus-flag/);
  });
});

describe('fuzz: emulator configs (serve and catalog --config)', () => {
  const PROFILES = resolve(import.meta.dirname, '../../profiles');
  const configs = readdirSync(PROFILES)
    .filter((file) => file.startsWith('emulator-') && file.endsWith('.yaml'))
    .map((file) => parseYaml(readFileSync(join(PROFILES, file), 'utf8')) as unknown);
  const configKey = fc
    .constantFrom(...configs)
    .chain((data) => fc.constantFrom(...keyPaths(data)).map((path) => ({ data, path })));

  it('a hostile value at any key of a shipped config: exit 2 naming the file and line, or a catalog', async () => {
    let caseNumber = 0;
    await fc.assert(
      fc.asyncProperty(configKey, hostileValue(), async ({ data, path }, value) => {
        const file = join(root, `config-${++caseNumber}.yaml`);
        writeFileSync(file, stringifyYaml(withValueAt(data, path, value)));
        const result = await runCliInProcess(['catalog', '--config', file], { cwd: root });
        expect(result.stderr).not.toMatch(STACK_LINE);
        expect([0, 2]).toContain(result.code);
        if (result.code === 2) expect(result.stderr).toMatch(new RegExp(`config-${caseNumber}\\.yaml:\\d+`));
      }),
      { seed: FUZZ_SEED, numRuns: 150 },
    );
  });

  it('an alias bomb is a config error (exit 2), not an internal error', async () => {
    const file = join(root, 'bomb.yaml');
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const [name, previous] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
    ])
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(', ')}]`);
    writeFileSync(file, levels.join('\n'));
    const result = await runCliInProcess(['catalog', '--config', file], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:1:1`);
  });
});

describe('fuzz: validate given a shipped profile with a hostile value at any key', () => {
  const PROFILES = resolve(import.meta.dirname, '../../profiles');
  const shipped = readdirSync(PROFILES)
    .filter((file) => file.endsWith('.yaml') && !file.startsWith('emulator-'))
    .map((file) => ({ file, data: parseYaml(readFileSync(join(PROFILES, file), 'utf8')) as unknown }));
  const profileKey = fc
    .constantFrom(...shipped)
    .chain(({ file, data }) => fc.constantFrom(...keyPaths(data)).map((path) => ({ file, data, path })));

  beforeAll(() => cpSync(PROFILES, join(root, 'profiles'), { recursive: true }));

  it('prints the plan (exit 0) or the problems with file:line:col (exit 2), never an internal error', async () => {
    const exits: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(profileKey, hostileValue(), async ({ file, data, path }, value) => {
        // In a copy of profiles/, beside the datasets and traces the profiles name by relative path.
        const target = join(root, 'profiles', file);
        writeFileSync(target, stringifyYaml(withValueAt(data, path, value)));
        const result = await runCliInProcess(['validate', target], { cwd: root });
        expect(result.stderr).not.toMatch(STACK_LINE);
        expect([0, 2]).toContain(result.code);
        if (result.code === 2) expect(result.stderr).toContain(`${target}:`);
        exits[result.code] = (exits[result.code] ?? 0) + 1;
      }),
      { seed: FUZZ_SEED, numRuns: 100 },
    );
    expect(exits[2]).toBeGreaterThan(30);
    expect(exits[0]).toBeGreaterThan(0);
  });
});
