/**
 * The package as users get it: `npm pack`, installed into an empty folder, gives a working `npx inferbench`
 * (the shipped profiles and schema inside it, a real run against the embedded emulator, the completion
 * script). The tarball is packed from the dist/ that `npm test` built (its pretest), without running the
 * build again; the install reads the npm cache that `npm ci` filled (--prefer-offline).
 * @module-tag tool
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
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

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inferbench-package-'));
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: REPO, timeout: 120_000 });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    expect(tarball).toBe(`inferbench-${VERSION}.tgz`);
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--omit', 'dev', `./${tarball as string}`],
      { cwd: dir, timeout: 240_000 },
    );
  }, 300_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers --version and validates a shipped profile from the installed package', async () => {
    expect((await npx(['--version'])).stdout.trim()).toBe(VERSION);
    const installed = join(dir, 'node_modules', 'inferbench');
    expect(existsSync(join(installed, 'schema', 'profile.schema.json'))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    const { stdout } = await bin(['validate', join(installed, 'profiles', 'quickstart.yaml')]);
    expect(stdout).toContain('quickstart');
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
    expect((await bin(['completion'])).stdout).toContain('_inferbench_yargs_completions');
    const commands = (await bin(['--get-yargs-completions', 'inferbench', ''])).stdout.split('\n');
    expect(commands).toEqual(expect.arrayContaining(['run', 'capacity', 'compare', 'merge', 'validate']));
    const flags = (await bin(['--get-yargs-completions', 'inferbench', 'run', '--'])).stdout.split('\n');
    expect(flags).toEqual(expect.arrayContaining(['--workers', '--max-cost', '--out']));
  }, 60_000);
});
