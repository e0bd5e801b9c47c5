/**
 * A start loads only what it uses: `inferbench --help` and `--version` load no command's implementation
 * (commands/index.ts imports a command's module only when the command line names it), and a command loads
 * its own tree, not the others'. Checked by the modules the process really loaded (a module-loader hook
 * that lists every URL it loads), never by time: a command that became eager again fails here on any
 * machine. Spawns dist/cli/main.js (build first).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'cli', 'main.js');
const DIST = `${pathToFileURL(join(ROOT, 'dist')).href}/`;

let dir = '';
let register = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ib-lazy-'));
  // The hook runs on the loader's thread: it writes each URL straight to fd 3, a pipe the test reads.
  writeFileSync(
    join(dir, 'hooks.mjs'),
    "import { writeSync } from 'node:fs';\nexport async function load(url, context, next) {\n  writeSync(3, url + '\\n');\n  return next(url, context);\n}\n",
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
  register = join(dir, 'register.mjs');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Loaded {
  readonly code: number | null;
  /** dist/ files, relative (`cli/main.js`). */
  readonly dist: readonly string[];
  /** Package names loaded from node_modules. */
  readonly packages: ReadonlySet<string>;
}

function loadedBy(args: readonly string[]): Loaded {
  const result = spawnSync(process.execPath, ['--import', register, MAIN, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  const urls = String(result.output[3] ?? '')
    .split('\n')
    .filter((url) => url !== '');
  const packages = new Set(
    urls.flatMap((url) => {
      const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      return match ? [match[1] as string] : [];
    }),
  );
  const dist = urls.filter((url) => url.startsWith(DIST)).map((url) => url.slice(DIST.length));
  return { code: result.status, dist, packages };
}

const HEAVY = ['js-tiktoken', 'zod', 'undici', 'prom-client', 'ajv', 'yaml', '@huggingface/tokenizers', 'uplot'];

describe('a start loads only what it uses', () => {
  it.each([['--help'], ['--version']])('`inferbench %s` loads no command and no heavy package', (flag) => {
    const loaded = loadedBy([flag]);
    expect(loaded.code).toBe(0);
    expect(loaded.dist).toContain('cli/main.js');
    expect(loaded.dist).toContain('cli/commands/index.js');
    // Nothing of a command: no command module, and nothing outside cli/ but the error base.
    expect(loaded.dist.filter((file) => file.startsWith('cli/commands/') && file !== 'cli/commands/index.js')).toEqual(
      [],
    );
    expect(loaded.dist.filter((file) => !file.startsWith('cli/') && file !== 'errors.js')).toEqual([]);
    expect(HEAVY.filter((name) => loaded.packages.has(name))).toEqual([]);
    expect(loaded.packages.has('yargs')).toBe(true);
  });

  it('`inferbench validate` loads its own command only, and neither the emulator nor the HTTP client', () => {
    const loaded = loadedBy(['validate', 'profiles/quickstart.yaml']);
    expect(loaded.code).toBe(0);
    expect(loaded.dist.filter((file) => file.startsWith('cli/commands/')).sort()).toEqual([
      'cli/commands/index.js',
      'cli/commands/validate.js',
    ]);
    expect(loaded.dist.filter((file) => file.startsWith('emulator/') || file.startsWith('runner/'))).toEqual([]);
    expect(['undici', 'prom-client'].filter((name) => loaded.packages.has(name))).toEqual([]);
  });

  it('`inferbench trend --help` loads its own command only, and neither the runner, the emulator nor the HTTP client', () => {
    const loaded = loadedBy(['trend', '--help']);
    expect(loaded.code).toBe(0);
    expect(loaded.dist.filter((file) => file.startsWith('cli/commands/')).sort()).toEqual([
      'cli/commands/index.js',
      'cli/commands/trend.js',
    ]);
    expect(loaded.dist.filter((file) => /^(runner|emulator|client|workload|schedule)\//.test(file))).toEqual([]);
    expect(['undici', 'prom-client', 'js-tiktoken'].filter((name) => loaded.packages.has(name))).toEqual([]);
  });

  it('`inferbench serve --help` loads the emulator command but none of the harness', () => {
    const loaded = loadedBy(['serve', '--help']);
    expect(loaded.code).toBe(0);
    expect(loaded.dist.filter((file) => file.startsWith('cli/commands/')).sort()).toEqual([
      'cli/commands/index.js',
      'cli/commands/serve-workers.js',
      'cli/commands/serve.js',
    ]);
    expect(
      loaded.dist.filter((file) => /^(runner|client|workload|schedule|aggregate|report|profile)\//.test(file)),
    ).toEqual([]);
  });
});
