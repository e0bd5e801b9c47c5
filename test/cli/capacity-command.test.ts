/**
 * What the `capacity` command adds to the search (whose decisions test/unit/runner/capacity-virtual-time.test.ts
 * proves in virtual time): the files of its run folder (summary.json, capacity.csv with a line per step and
 * each objective's exceedance column, capacity-steps.json, report.html), `--reevaluate DIR` answering from
 * them without sending a request, `--confirm DIR` starting one resolution below the capacity DIR's
 * summary.json states, and exit 99 naming min_capacity. The wiring, not the statistics: short searches
 * with a decisive SLO (a p90 TTFT of 1 s against answers in 10 ms) on a 4 x 20 ms slots server on
 * 127.0.0.1, whatever each step's outcome on a busy machine (a step the harness spoiled is run again: on
 * a quiet machine the whole test takes about 10 s, on a loaded one up to a minute).
 * Slow on purpose (real capacity searches: steps of seconds on the real clock): not in test:fast.
 * @module-tag slow
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapacitySummary } from '../../src/metrics/capacity-summary.js';
import { runCliInProcess } from '../helpers/cli.js';
import { readSummary, useRunFolder } from '../helpers/run-folder.js';
import { SLOTS_MODEL, startSlotsServer, type SlotsServer } from '../helpers/slots-server.js';

const folder = useRunFolder('inferbench-capacity-command-');
let server: SlotsServer;

beforeAll(async () => {
  server = await startSlotsServer({ slots: 4, serviceMs: 20 });
});
afterAll(async () => {
  await server.close();
});

const GROUP = `s/${SLOTS_MODEL}/-`;

function capacityOf(dir: string): CapacitySummary {
  const capacity = readSummary(dir).capacity;
  if (capacity === undefined) throw new Error(`${dir}: summary.json has no capacity`);
  return capacity;
}

describe('inferbench capacity, the command', () => {
  it('writes its run folder, re-evaluates it sending nothing, confirms a capacity, and exits 99 under min_capacity', async () => {
    const path = folder.writeProfile(
      'command',
      `name: command
scenarios:
  - name: s
    models: [${SLOTS_MODEL}]
    load: { mode: rate, rate: 20, arrival: constant }
    duration: 10s
    prompt: { input_tokens: 16, output_tokens: 4 }
capacity:
  slo: { ttft_ms.p90: 1000ms, error_rate: 10% }
  start: 20
  resolution: 5%
  max_steps: 2
  max_step_duration: 4s
  step_warmup: 500ms
  block: 500ms
`,
    );
    const dir = join(folder.dir, 'search');
    const result = await runCliInProcess(['capacity', path, '--base-url', server.url, '--out', dir, '--steps'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(0);
    const summary = capacityOf(dir);
    const group = summary.groups[0]!;
    expect(group.group).toBe(GROUP);
    expect(group.steps.length).toBeGreaterThan(0);
    expect(result.stdout).toContain(GROUP);
    for (const file of ['summary.json', 'capacity.csv', 'capacity-steps.json', 'report.html'])
      expect(existsSync(join(dir, file)), file).toBe(true);
    const csv = readFileSync(join(dir, 'capacity.csv'), 'utf8').trim().split('\n');
    expect(csv).toHaveLength(group.steps.length + 1);
    expect(csv[0]).toContain('ttft_ms.p90_exceeded_pct');
    expect(csv[0]).toContain('error_rate_exceeded_pct');
    // step_warmup 500ms in blocks of 500 ms: the first block and one more untested, stored for --reevaluate.
    const stored = JSON.parse(readFileSync(join(dir, 'capacity-steps.json'), 'utf8')) as {
      groups: { group: string; step_warmup_ms: number; steps: { ramp_blocks?: number }[] }[];
    };
    expect(stored.groups[0]!.group).toBe(GROUP);
    expect(stored.groups[0]!.step_warmup_ms).toBe(500);
    expect(stored.groups[0]!.steps).toHaveLength(group.steps.length);
    for (const step of stored.groups[0]!.steps) expect(step.ramp_blocks).toBe(2);

    // --reevaluate: the stored steps under the same SLO, not one request sent.
    const sent = server.requests.length;
    const again = await runCliInProcess(['capacity', '--reevaluate', dir, '--json'], { cwd: folder.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(server.requests.length).toBe(sent);
    const replayed = (JSON.parse(again.stdout) as CapacitySummary).groups[0]!;
    expect(replayed.group).toBe(GROUP);
    expect(replayed.steps.map((step) => step.outcome)).toEqual(group.steps.map((step) => step.outcome));
    expect(replayed.capacity).toBe(group.capacity);

    // --confirm DIR reads the capacity DIR's summary.json states (here set to 30 req/s, whatever the busy
    // machine let the search find): the first step is one resolution (5%) below it, with no calibration.
    const written = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { capacity: CapacitySummary };
    written.capacity.groups[0]!.capacity = 30;
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(written));
    // And a min_capacity no answer here reaches: exit 99, said on stderr.
    const confirmDir = join(folder.dir, 'confirm');
    const confirm = await runCliInProcess(
      [
        'capacity',
        path,
        '--base-url',
        server.url,
        '--out',
        confirmDir,
        '--confirm',
        dir,
        '--set',
        'capacity.min_capacity=10000',
      ],
      { cwd: folder.dir },
    );
    expect(confirm.code, confirm.stderr).toBe(99);
    expect(confirm.stderr).toContain(`capacity of ${GROUP} is below min_capacity 10000 req/s`);
    const confirmed = capacityOf(confirmDir).groups[0]!;
    expect(confirmed.calibration).toBeNull();
    // (28.5 is above the lowest load its p90 can decide at within a 4 s step: not raised.)
    expect(confirmed.lowest_load!).toBeLessThan(28.5);
    expect(confirmed.steps[0]!.load, confirm.stderr).toBeCloseTo(28.5, 6);
    // Then one resolution ratio ((1 + 5%) / (1 - 5%)) above, if it passed (a step the busy harness spoiled
    // is run again at its load).
    for (const step of confirmed.steps) expect([28.5, 31.5]).toContain(Math.round(step.load * 10) / 10);
    expect(confirmed.below_min).toBe(true);
  }, 120_000);
});
