/**
 * The profiles shipped in profiles/ (not the emulator configs beside them: files with a scenarios list),
 * and one of them run as a user would run it (`inferbench run`, in-process) against the emulator (a fresh
 * one in this process per run, with the profile's target.emulator_config if it names one, as the embedded
 * one would have; the embedded child itself is run.test.ts's subject), shortened with --set wherever it has
 * a duration (a scenario's, its stages', or the defaults'), checked to pass its own thresholds. Two runs at
 * a time (each with its own emulator on its own port, and its own output folder): a run mostly waits on
 * its emulator's simulated tokens, so two side by side take about half the time. test/integration/runner/shipped-profiles*.test.ts split the list in halves, which vitest
 * runs side by side too where it has more than one worker.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunSummary } from '../../src/metrics/run-summary.js';
import { runCliInProcess } from './cli.js';
import { useInProcessEmulators } from './in-process-emulator.js';

const PROFILES = resolve(import.meta.dirname, '..', '..', 'profiles');

interface ShippedProfile {
  target?: { emulator_config?: string };
  defaults?: { duration?: string };
  scenarios: { duration?: string; load?: { stages?: unknown } }[];
}

const read = (name: string): unknown => parse(readFileSync(join(PROFILES, name), 'utf8'));

export const SHIPPED_PROFILES: readonly string[] = readdirSync(PROFILES)
  .filter((name) => name.endsWith('.yaml'))
  .filter((name) => Array.isArray((read(name) as { scenarios?: unknown } | null)?.scenarios))
  .sort();

/** The --set arguments that shorten a profile: 3 s wherever a duration is given (also as a default). */
function shortened(profile: ShippedProfile): string[] {
  const sets = profile.scenarios.flatMap((scenario, i) =>
    scenario.duration !== undefined || scenario.load?.stages !== undefined
      ? ['--set', `scenarios[${i}].duration=3s`]
      : [],
  );
  if (profile.defaults?.duration !== undefined) sets.push('--set', 'defaults.duration=3s');
  return sets;
}

/** Runs at most `limit` of the functions given at once, the others waiting their turn. */
function limiter(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (running >= limit) await new Promise<void>((wake) => waiting.push(wake));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Profile runs at once: two keep the 2-core machine's harness from being its own bottleneck. */
const AT_ONCE = 2;

/** One test per profile of `names`, each run in a temporary folder removed after the file. */
export function testShippedProfiles(names: readonly string[]): void {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-shipped-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const turn = limiter(AT_ONCE);
  const emulators = useInProcessEmulators();
  for (const name of names) {
    const title = `${name} runs against the emulator and passes its thresholds`;
    it.concurrent(title, { timeout: 120_000 }, async () => {
      const out = join(dir, name.replace('.yaml', ''));
      const profile = read(name) as ShippedProfile;
      const sets = shortened(profile);
      const config = profile.target?.emulator_config;
      const result = await turn(async () =>
        runCliInProcess(['run', join(PROFILES, name), '--out', out, ...sets], {
          cwd: dir,
          target: await emulators.start(config === undefined ? {} : { configPath: resolve(PROFILES, config) }),
        }),
      );
      expect(result.stderr).not.toMatch(/internal error|threshold failed/);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
      expect(summary.complete).toBe(true);
      expect(summary.groups.length).toBeGreaterThan(0);
      for (const group of summary.groups) expect(group.requests.ok).toBeGreaterThan(0);
      expect(summary.thresholds.every((threshold) => threshold.passed)).toBe(true);
    });
  }
}
