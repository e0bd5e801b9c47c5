/**
 * The profiles shipped in profiles/ (not the emulator configs beside them: files with a scenarios list),
 * and one of them run as a user would run it (`inferbench run`, in-process) against the emulator (a fresh
 * one in this process per run, with the profile's target.emulator_config if it names one, as the embedded
 * one would have; the embedded child itself is run.test.ts's subject), shortened with --set (SHORT below),
 * checked to pass its own thresholds. Two runs at a time (each with its own emulator on its own port, and
 * its own output folder): a run mostly waits on its emulator's simulated tokens, so two side by side take
 * about half the time. test/integration/runner/shipped-profiles*.test.ts split the list in halves, which
 * vitest runs side by side too where it has more than one worker.
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

interface ShippedPart {
  duration?: string;
  warmup?: string;
  requests?: number;
  load?: { stages?: unknown; mode?: string };
}

interface ShippedProfile {
  target?: { emulator_config?: string };
  defaults?: ShippedPart;
  scenarios: ShippedPart[];
}

const read = (name: string): unknown => parse(readFileSync(join(PROFILES, name), 'utf8'));

export const SHIPPED_PROFILES: readonly string[] = readdirSync(PROFILES)
  .filter((name) => name.endsWith('.yaml'))
  .filter((name) => Array.isArray((read(name) as { scenarios?: unknown } | null)?.scenarios))
  .sort();

/**
 * What shortens a run without changing what it is: a measured part of 2 s wherever a duration (also as a
 * default), stages or a trace set its length, a warmup of 1 s where it has one (the phase still runs), at
 * most 24 requests where a count sets it (ci-regression's 120 took 8 s of simulated decoding). Thresholds
 * hold per request, not per run length. Not shorter: a run's CPU is mostly fixed (profile checks,
 * workloads, histograms, report.html), and 2 s keeps every group's first launch inside its measured part
 * while the other run in this process does its synchronous set-up (1 s once sent nothing, at load 19).
 */
const SHORT = { duration: '2s', warmup: '1s', requests: 24 } as const;

/** The --set arguments that shorten a part (`prefix` is `defaults` or `scenarios[i]`). */
function shortenedPart(prefix: string, part: ShippedPart | undefined): string[] {
  if (part === undefined) return [];
  const sets: string[] = [];
  if (part.duration !== undefined || part.load?.stages !== undefined || part.load?.mode === 'trace')
    sets.push('--set', `${prefix}.duration=${SHORT.duration}`);
  if (part.warmup !== undefined) sets.push('--set', `${prefix}.warmup=${SHORT.warmup}`);
  if (part.requests !== undefined && part.requests > SHORT.requests)
    sets.push('--set', `${prefix}.requests=${SHORT.requests}`);
  return sets;
}

/** The --set arguments that shorten a profile. */
function shortened(profile: ShippedProfile): string[] {
  return [
    ...profile.scenarios.flatMap((scenario, i) => shortenedPart(`scenarios[${i}]`, scenario)),
    ...shortenedPart('defaults', profile.defaults),
  ];
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
