/**
 * `load: { mode: sweep }` and `{ mode: throughput }` on a server of known capacity (4 slots of 100 ms: 40
 * requests/s at most, 10/s one at a time): a sweep runs one at a time, then as fast as the server takes,
 * then its rates evenly spaced strictly between the two measured rates, each phase a group of its own;
 * throughput alone finds the server's ceiling; a sweep refuses --workers; misplaced keys are profile errors.
 * The two runs are slow on purpose (each phase measures the server for seconds of real time), tagged
 * `slow`: not in test:fast, where the sweep's phases are tested in virtual time
 * (test/unit/runner/run-virtual-time.test.ts).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';
import { SLOTS_MODEL, startSlotsServer, type SlotsServer } from '../helpers/slots-server.js';

const folder = useRunFolder('inferbench-sweep-');
let server: SlotsServer;

beforeAll(async () => {
  server = await startSlotsServer({ slots: 4, serviceMs: 100 });
});
afterAll(async () => {
  await server.close();
});

/** Counted with the tiny tokenizer: the rates are the subject, not the counts (o200k takes seconds to load). */
const profile = (name: string, load: string): string =>
  folder.writeProfile(
    name,
    `name: ${name}
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
scenarios:
  - name: s
    models: [${SLOTS_MODEL}]
    load: ${load}
    duration: 2s
    prompt: { input_tokens: 16, output_tokens: 4 }
`,
  );

describe('sweep and throughput loads', () => {
  it('sweeps: one at a time, the ceiling, then rates evenly between them', {
    timeout: 120_000,
    tags: ['slow'],
  }, async () => {
    const dir = join(folder.dir, 'sweep');
    const result = await runCliInProcess(
      [
        'run',
        profile('sweep', '{ mode: sweep, steps: 2, arrival: constant, max_concurrency: 32 }'),
        '--base-url',
        server.url,
        '--out',
        dir,
      ],
      { cwd: folder.dir },
    );
    expect(result.code, result.stderr).toBe(0);
    const summary = readSummary(dir);
    const rate = (scenario: string): number => {
      const group = summary.groups.find((g) => g.scenario === scenario);
      if (group === undefined) throw new Error(`no group of ${scenario}`);
      return group.throughput.requests_per_s;
    };
    expect(summary.groups.map((g) => g.scenario)).toEqual(['s.sync', 's.throughput', 's.rate-1', 's.rate-2']);
    const sync = rate('s.sync');
    const ceiling = rate('s.throughput');
    // One at a time: a request every ~100 ms; as fast as it takes: its 4 slots' 40/s.
    expect(sync).toBeGreaterThan(6);
    expect(sync).toBeLessThan(11);
    expect(ceiling).toBeGreaterThan(30);
    expect(ceiling).toBeLessThan(44);
    const rates = summary.sweep_rates ?? {};
    const key = (phase: string) => `s.${phase}/${SLOTS_MODEL}/-`;
    expect(rates[key('rate-1')]).toBeCloseTo(sync + (ceiling - sync) / 3, 1);
    expect(rates[key('rate-2')]).toBeCloseTo(sync + ((ceiling - sync) * 2) / 3, 1);
    expect(result.stderr).toMatch(
      /sweep s\.rate-1\/slots-model\/-: [\d.]+ req\/s \(between [\d.]+ one at a time and [\d.]+ at throughput\)/,
    );
    // Each rate phase is an open loop at its rate: it achieves about that rate (below the ceiling).
    expect(rate('s.rate-1')).toBeGreaterThan(rates[key('rate-1')]! * 0.7);
  });

  it('throughput alone is a closed loop at max_concurrency: the server ceiling', {
    timeout: 60_000,
    tags: ['slow'],
  }, async () => {
    const dir = join(folder.dir, 'throughput');
    const result = await runCliInProcess(
      [
        'run',
        profile('throughput', '{ mode: throughput, max_concurrency: 16 }'),
        '--base-url',
        server.url,
        '--out',
        dir,
      ],
      { cwd: folder.dir },
    );
    expect(result.code, result.stderr).toBe(0);
    const summary = readSummary(dir);
    const resolved = summary.profile.resolved as { scenarios: { load: unknown }[] };
    expect(resolved.scenarios[0]?.load).toEqual({ mode: 'concurrency', concurrency: 16, stages: null });
    const perS = summary.groups[0]!.throughput.requests_per_s;
    expect(perS).toBeGreaterThan(30);
    expect(perS).toBeLessThan(44);
  });

  it('refuses a sweep with --workers and misplaced keys', async () => {
    const workers = await runCliInProcess(
      ['run', profile('sweep-workers', '{ mode: sweep, steps: 2 }'), '--base-url', server.url, '--workers', '2'],
      { cwd: folder.dir },
    );
    expect(workers.code).toBe(2);
    expect(workers.stderr).toContain('a sweep (load mode sweep) runs in one process');
    const bad = await runCliInProcess(['validate', profile('bad', '{ mode: throughput, rate: 5, steps: 3 }')], {
      cwd: folder.dir,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('scenarios[0].load.rate: does not apply to mode: throughput');
    expect(bad.stderr).toContain('scenarios[0].load.steps: applies to mode: sweep only');
  });
});
