/**
 * The shipped busy config does what its comments promise: the tier-comparison profile run against it
 * (the real CLI, `node dist/cli/main.js run`, so build first) shows queue_time ordered
 * priority < default < flex. About 25 s: it is the profile as a user runs it.
 * @module-tag slow
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const out = mkdtempSync(join(tmpdir(), 'inferbench-busy-'));

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

interface Group {
  tier: string;
  requests: { ok: number; failed: number };
  metrics: Record<string, { p50: number }>;
}

describe('profiles/emulator-busy.yaml', () => {
  it('makes the tier-comparison profile show queue_time priority < default < flex', { timeout: 120_000 }, async () => {
    const args = [
      join(ROOT, 'dist', 'cli', 'main.js'),
      'run',
      join(ROOT, 'profiles', 'tier-comparison.yaml'),
      '--set',
      'target.emulator_config=emulator-busy.yaml',
      '--out',
      out,
      '--quiet',
    ];
    const code = await new Promise<number>((done) => {
      const child = execFile(process.execPath, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, () => undefined);
      child.once('exit', (c) => done(c ?? -1));
    });
    expect(code).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { groups: Group[] };
    const byTier = Object.fromEntries(summary.groups.map((g) => [g.tier, g]));
    const queueP50 = (tier: string): number => byTier[tier]!.metrics.queue_time_ms!.p50;
    for (const tier of ['priority', 'default', 'flex']) {
      expect(byTier[tier]!.requests.failed).toBe(0);
      expect(byTier[tier]!.requests.ok).toBeGreaterThan(10);
    }
    expect(queueP50('priority')).toBeLessThan(queueP50('default'));
    expect(queueP50('default')).toBeLessThan(queueP50('flex'));
  });
});
