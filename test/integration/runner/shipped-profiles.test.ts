/**
 * Every profile shipped in profiles/ runs as a user would run it (`inferbench run`, in-process) against
 * the embedded emulator, shortened with --set where it has a duration, and passes its own thresholds.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCliInProcess } from '../../helpers/cli.js';
import type { RunSummary } from '../../../src/metrics/run-summary.js';

const PROFILES = resolve(import.meta.dirname, '..', '..', '..', 'profiles');
const dir = mkdtempSync(join(tmpdir(), 'inferbench-shipped-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Profiles (not emulator configs, which also live in profiles/): files with a scenarios list. */
const shipped = readdirSync(PROFILES)
  .filter((name) => name.endsWith('.yaml'))
  .filter((name) =>
    Array.isArray((parse(readFileSync(join(PROFILES, name), 'utf8')) as { scenarios?: unknown } | null)?.scenarios),
  );

describe('shipped profiles', () => {
  it('are all found', () => {
    expect(shipped).toEqual(
      expect.arrayContaining([
        'quickstart.yaml',
        'ci-regression.yaml',
        'tier-comparison.yaml',
        'model-comparison.yaml',
        'open-loop-poisson.yaml',
        'ramp.yaml',
      ]),
    );
  });

  for (const name of shipped) {
    it(`${name} runs against the embedded emulator and passes its thresholds`, { timeout: 120_000 }, async () => {
      const profile = parse(readFileSync(join(PROFILES, name), 'utf8')) as {
        scenarios: { duration?: string; load?: { stages?: unknown } }[];
      };
      const sets = profile.scenarios.flatMap((scenario, i) =>
        scenario.duration !== undefined || scenario.load?.stages !== undefined
          ? ['--set', `scenarios[${i}].duration=3s`]
          : [],
      );
      const out = join(dir, name.replace('.yaml', ''));
      const result = await runCliInProcess(['run', join(PROFILES, name), '--out', out, ...sets], { cwd: dir });
      expect(result.stderr).not.toMatch(/internal error|threshold failed/);
      expect(result.code).toBe(0);
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
      expect(summary.complete).toBe(true);
      expect(summary.groups.length).toBeGreaterThan(0);
      for (const group of summary.groups) expect(group.requests.ok).toBeGreaterThan(0);
      expect(summary.thresholds.every((threshold) => threshold.passed)).toBe(true);
    });
  }
});
