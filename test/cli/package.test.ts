/**
 * The package as users get it: `npm pack`, installed into an empty folder, gives a working `npx inferbench`
 * (the shipped profiles and schema inside it, no bench code, a real run against the embedded emulator, the
 * completion script). One pack and one install serve every test. The tarball is packed from the dist/ that
 * `npm test` built (its pretest), without running the build again; the install reads only the npm cache
 * that `npm ci` filled where it has the packages (--prefer-offline: a cache without one still installs).
 * @module-tag tool
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

describe('npm pack, installed into an empty folder', () => {
  let dir: string;
  const env = { ...process.env, CI: '1' };
  const npx = (args: string[]) =>
    run('npx', ['--no-install', 'inferbench', ...args], { cwd: dir, env, timeout: 90_000 });
  // The bin npm linked, as a shell runs it (its shebang), without npx's own start-up each time.
  const bin = (args: string[]) =>
    run(join(dir, 'node_modules', '.bin', 'inferbench'), args, { cwd: dir, env, timeout: 90_000 });

  /** What `npm pack --json` said it packed. */
  let packed: { filename: string; files: { path: string }[] } | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inferbench-package-'));
    // One pack for both claims: its file list (with a stale dist/bench/ planted, as a build from before
    // bench/ moved out left it) and the tarball installed below.
    const stale = join(REPO, 'dist', 'bench');
    const planted = !existsSync(stale);
    if (planted) {
      mkdirSync(stale, { recursive: true });
      writeFileSync(join(stale, 'main.js'), '');
    }
    try {
      const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
        cwd: REPO,
        timeout: 120_000,
      });
      [packed] = JSON.parse(stdout) as (typeof packed)[];
    } finally {
      if (planted) rmSync(stale, { recursive: true, force: true });
    }
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    expect(tarball).toBe(`inferbench-${VERSION}.tgz`);
    // From the cache `npm ci` filled: no registry round trip, no audit, nothing but the install itself.
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--omit', 'dev', `./${tarball as string}`],
      {
        cwd: dir,
        timeout: 240_000,
      },
    );
  }, 300_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('packs the built CLI and no bench code, not even a dist/bench/ left by a build from before bench/ moved out', () => {
    expect(packed?.filename).toBe(`inferbench-${VERSION}.tgz`);
    const paths = (packed?.files ?? []).map((file) => file.path);
    expect(paths).toContain('dist/cli/main.js');
    // The Grafana dashboard the docs point to (grafana-dashboard.test.ts checks its queries).
    expect(paths).toContain('profiles/grafana/inferbench-dashboard.json');
    expect(paths.filter((path) => /(^|\/)bench(\/|$)|^dist-bench\/|known-timing/.test(path))).toEqual([]);
    expect(existsSync(join(dir, 'node_modules', 'inferbench', 'dist', 'bench'))).toBe(false);
  });

  it('answers --version and validates a shipped profile from the installed package', async () => {
    const installed = join(dir, 'node_modules', 'inferbench');
    const [version, validated] = await Promise.all([
      npx(['--version']),
      bin(['validate', join(installed, 'profiles', 'quickstart.yaml')]),
    ]);
    expect(version.stdout.trim()).toBe(VERSION);
    expect(existsSync(join(installed, 'schema', 'profile.schema.json'))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    expect(validated.stdout).toContain('quickstart');
  }, 120_000);

  it('runs against the embedded emulator and writes the run folder', async () => {
    const profile = join(dir, 'node_modules', 'inferbench', 'profiles', 'quickstart.yaml');
    const out = join(dir, 'run');
    const { stdout } = await bin([
      'run',
      profile,
      '--out',
      out,
      '--set',
      'scenarios[0].duration=1s',
      '--set',
      'scenarios[0].warmup=0s',
    ]);
    expect(stdout).toMatch(/^group\s+ok\s+failed/m);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      complete: boolean;
      groups: { requests: { ok: number } }[];
    };
    expect(summary.complete).toBe(true);
    expect(summary.groups.every((group) => group.requests.ok > 0)).toBe(true);
    expect(existsSync(join(out, 'report.html'))).toBe(true);
  }, 120_000);

  it('prints a bash completion script and completes commands and flags', async () => {
    const [script, commands, flags] = await Promise.all([
      bin(['completion']),
      bin(['--get-yargs-completions', 'inferbench', '']),
      bin(['--get-yargs-completions', 'inferbench', 'run', '--']),
    ]);
    expect(script.stdout).toContain('_inferbench_yargs_completions');
    expect(commands.stdout.split('\n')).toEqual(
      expect.arrayContaining(['run', 'capacity', 'compare', 'merge', 'validate']),
    );
    expect(flags.stdout.split('\n')).toEqual(expect.arrayContaining(['--workers', '--max-cost', '--out']));
  }, 60_000);
});
