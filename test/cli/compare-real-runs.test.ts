/**
 * `inferbench compare` on real runs against emulators in this process (one fresh per run, real sockets):
 * two runs of the same profile pass (exit 0), and a run against a deliberately slower emulator config
 * fails with exit 99 naming the metric. Tolerances are wide because eight
 * processes share this machine: the slow config is ~10x slower, far beyond any scheduling noise.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { runCliInProcess } from '../helpers/cli.js';
import { compareReadyProfile, slowEmulatorConfig, TAILS_OFF } from '../helpers/compare-ready-runs.js';
import { useInProcessEmulators } from '../helpers/in-process-emulator.js';

let dir: string;
const emulators = useInProcessEmulators();

const PROFILE = compareReadyProfile('compare-real', 40);

const SLOW_CONFIG = slowEmulatorConfig(400);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'inferbench-compare-real-'));
  writeFileSync(join(dir, 'profile.yaml'), PROFILE);
  writeFileSync(join(dir, 'slow.yaml'), SLOW_CONFIG);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A run of the profile against a fresh emulator, with the built-in catalog or the config given. */
async function run(out: string, configPath?: string): Promise<string> {
  const target = await emulators.start(configPath === undefined ? {} : { configPath });
  const result = await runCliInProcess(['run', join(dir, 'profile.yaml'), '--out', join(dir, out), '--quiet'], {
    cwd: dir,
    target,
  });
  expect(result.code, result.stderr).toBe(0);
  return join(dir, out);
}

describe('compare on real runs', () => {
  it('passes two runs of one profile and fails a run against a slower emulator, naming the metric', async () => {
    const baseline = await run('baseline');
    const again = await run('again');
    const slow = await run('slow', join(dir, 'slow.yaml'));

    const same = await runCliInProcess(['compare', baseline, again, ...TAILS_OFF]);
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).toMatch(/PASS: no significant regression/);

    const junit = join(dir, 'junit.xml');
    const worse = await runCliInProcess(['compare', baseline, slow, '--junit', junit, ...TAILS_OFF]);
    expect(worse.code, worse.stdout + worse.stderr).toBe(99);
    expect(worse.stdout).toMatch(/FAIL: .*steady\/small-fast-8b\/- ttft_ms\.p50/);
    expect(worse.stdout).toMatch(/e2e_ms\.p50 .*REGRESSION/);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(readFileSync(junit, 'utf8'));
    // ttft p50, tpot p50, e2e p50 and the default error_rate.
    expect(Number(doc.testsuites['@tests'])).toBe(4);
    expect(Number(doc.testsuites['@failures'])).toBeGreaterThanOrEqual(2);
  });
});
