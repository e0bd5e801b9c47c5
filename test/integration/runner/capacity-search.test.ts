/**
 * `inferbench capacity` against a server of known capacity (test/helpers/slots-server.ts: 4 slots of
 * 100 ms, so 40 requests per second, or 4 streams without queueing): the search finds the truth within
 * 10% in both of its answers (arrival rate, streams), every step is written with its decision, the
 * stored steps re-evaluated under the same SLO give the same decisions (a stricter SLO a lower capacity),
 * --confirm checks a previous capacity from one step below it, a capacity under min_capacity exits 99, and
 * with capacity.mix the tiers searched together find flex (queued behind default) binding near 40 req/s.
 * @module-tag timing
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapacityStepsFile, CapacitySummary } from '../../../src/metrics/capacity-summary.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';
import { SLOTS_MODEL, startSlotsServer, type SlotsServer } from '../../helpers/slots-server.js';

const folder = useRunFolder('inferbench-capacity-');
let server: SlotsServer;

beforeAll(async () => {
  server = await startSlotsServer({ slots: 4, serviceMs: 100 });
});
afterAll(async () => {
  await server.close();
});

function profile(name: string, load: string, capacity: string): string {
  return folder.writeProfile(
    name,
    `name: ${name}
scenarios:
  - name: s
    models: [${SLOTS_MODEL}]
    load: ${load}
    duration: 10s
    prompt: { input_tokens: 16, output_tokens: 4 }
capacity:
${capacity}
`,
  );
}

function capacityOf(dir: string): CapacitySummary {
  const summary = readSummary(dir);
  if (summary.capacity === undefined) throw new Error(`${dir}: summary.json has no capacity`);
  return summary.capacity;
}

describe('inferbench capacity', () => {
  it('finds the arrival rate a 40 req/s server takes within 10%, and writes every step', async () => {
    // TTFT is 50 ms while nothing waits; a queue that grows pushes it past 75 ms within a second or two.
    const path = profile(
      'rate',
      '{ mode: rate, rate: 10, arrival: constant }',
      '  slo: { ttft_ms.p90: 75ms, error_rate: 10% }\n  start: 10\n  resolution: 5%\n  step_duration: 15s\n  step_warmup: 2s',
    );
    const dir = join(folder.dir, 'rate');
    const result = await runCliInProcess(['capacity', path, '--base-url', server.url, '--out', dir, '--steps'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(0);
    const group = capacityOf(dir).groups[0]!;
    expect(group.unit).toBe('req/s');
    expect(group.capacity, result.stdout).not.toBeNull();
    expect(group.capacity!).toBeGreaterThan(server.capacityPerS * 0.9);
    expect(group.capacity!).toBeLessThan(server.capacityPerS * 1.1);
    expect(group.last_pass!).toBeLessThan(group.first_fail!);
    expect(group.binding).toBe('ttft_ms.p90');
    // Probing doubles from 10: 10, 20, 40 ... then bisects (a step the busy harness spoiled is run again).
    const loads = group.steps.map((step) => step.load).filter((load, i, all) => i === 0 || load !== all[i - 1]);
    expect(loads.slice(0, 3)).toEqual([10, 20, 40]);
    for (const step of group.steps) expect(step.reason.length).toBeGreaterThan(10);
    expect(result.stdout).toMatch(/chat|s\/slots-model\/-/);
    for (const file of ['summary.json', 'capacity.csv', 'capacity-steps.json', 'report.html'])
      expect(existsSync(join(dir, file)), file).toBe(true);
    const csv = readFileSync(join(dir, 'capacity.csv'), 'utf8').trim().split('\n');
    expect(csv).toHaveLength(group.steps.length + 1);
    expect(csv[0]).toContain('ttft_ms.p90_exceeded_pct');
    // step_warmup 2s: every step leaves its first block and 2 more untested, and says so.
    expect(capacityOf(dir).settings.step_warmup_ms).toBe(2000);
    expect(group.step_warmup_ms).toBe(2000);
    const stored = JSON.parse(readFileSync(join(dir, 'capacity-steps.json'), 'utf8')) as CapacityStepsFile;
    expect(stored.groups[0]!.step_warmup_ms).toBe(2000);
    for (const step of stored.groups[0]!.steps) expect(step.ramp_blocks).toBe(3);

    // The same SLO from the stored steps: the same decisions, not one request sent.
    const sent = server.requests.length;
    const again = await runCliInProcess(['capacity', '--reevaluate', dir, '--json'], { cwd: folder.dir });
    expect(again.code, again.stderr).toBe(0);
    expect(server.requests.length).toBe(sent);
    const replayed = (JSON.parse(again.stdout) as CapacitySummary).groups[0]!;
    expect(replayed.steps.map((step) => step.outcome)).toEqual(group.steps.map((step) => step.outcome));
    expect(replayed.capacity).toBe(group.capacity);
    expect(replayed.step_warmup_ms).toBe(2000);

    // A stricter SLO answered offline: never a higher capacity.
    const strict = await runCliInProcess(
      ['capacity', '--reevaluate', dir, '--slo', 'ttft_ms.p90=45ms', '--slo', 'error_rate=10%', '--json'],
      { cwd: folder.dir },
    );
    expect(strict.code, strict.stderr).toBe(0);
    const strictGroup = (JSON.parse(strict.stdout) as CapacitySummary).groups[0]!;
    expect(strictGroup.capacity ?? 0).toBeLessThan(group.capacity!);

    // --confirm: one step on each side of the capacity found, starting 5% below it.
    const confirmDir = join(folder.dir, 'confirm');
    const confirm = await runCliInProcess(
      ['capacity', path, '--base-url', server.url, '--out', confirmDir, '--confirm', dir],
      {
        cwd: folder.dir,
      },
    );
    expect(confirm.code, confirm.stderr).toBe(0);
    const confirmed = capacityOf(confirmDir).groups[0]!;
    expect(confirmed.calibration).toBeNull();
    expect(confirmed.step_warmup_ms).toBe(2000);
    expect(confirmed.steps[0]!.load).toBeCloseTo(group.capacity! * 0.95, 1);
    const decided = confirmed.steps.filter((step) => step.outcome !== 'inconclusive');
    expect(decided.length).toBeGreaterThanOrEqual(2);
    expect(confirmed.capacity!).toBeGreaterThan(server.capacityPerS * 0.9);
    expect(confirmed.capacity!).toBeLessThan(server.capacityPerS * 1.1);
  }, 240_000);

  it('finds the streams a 4-slot server takes without queueing, and exits 99 under min_capacity', async () => {
    // 4 streams: TTFT 50 ms; 5 streams: each waits about a quarter of a service, TTFT about 75 ms.
    const path = profile(
      'streams',
      '{ mode: concurrency, concurrency: 1 }',
      '  slo: { ttft_ms.p90: 62ms }\n  start: 1\n  min_capacity: 6\n  step_duration: 15s\n  step_warmup: 0s',
    );
    const dir = join(folder.dir, 'streams');
    const result = await runCliInProcess(['capacity', path, '--base-url', server.url, '--out', dir], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(99);
    expect(result.stderr).toContain('below min_capacity 6');
    const group = capacityOf(dir).groups[0]!;
    expect(group.unit).toBe('streams');
    expect(group.last_pass).toBe(4);
    expect(group.first_fail).toBe(5);
    // Streams come whole: 4, whatever fraction the fit's crossing has.
    expect(group.capacity).toBe(4);
    expect(Number.isInteger(group.interval![0]) && Number.isInteger(group.interval![1])).toBe(true);
    expect(group.below_min).toBe(true);
    for (const step of group.steps) expect(Number.isInteger(step.load)).toBe(true);
    expect(group.step_warmup_ms).toBe(0);
  }, 180_000);

  it('searches tiers together: flex, queued behind default, breaks first', async () => {
    // Half the total each: past 40 req/s in all the queue grows, and default is always served first, so
    // a default request waits at most for one slot to free (TTFT under 50 + 100 ms) until its own half
    // reaches 40, while flex's wait, and TTFT, grow without bound once the total passes 40.
    const path = profile(
      'mix',
      '{ mode: rate, rate: 10, arrival: constant }\n    tiers: [default, flex]',
      '  slo: { ttft_ms.p90: 175ms }\n  start: 20\n  resolution: 10%\n  step_duration: 15s\n  step_warmup: 2s\n  mix: { default: { weight: 1 }, flex: { weight: 1 } }',
    );
    const dir = join(folder.dir, 'mix');
    const result = await runCliInProcess(['capacity', path, '--base-url', server.url, '--out', dir, '--steps'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(0);
    const group = capacityOf(dir).groups[0]!;
    expect(group.group).toBe('s/mix');
    const [standard, flex] = group.members!;
    expect(standard!.group).toBe(`s/${SLOTS_MODEL}/default`);
    expect(flex!.group).toBe(`s/${SLOTS_MODEL}/flex`);
    expect(flex!.capacity, result.stdout).not.toBeNull();
    expect(flex!.capacity!).toBeGreaterThan(server.capacityPerS * 0.85);
    expect(flex!.capacity!).toBeLessThan(server.capacityPerS * 1.15);
    // flex binds: its crossing is the mix's capacity, below default's (or default never broke at all).
    expect(group.binding, `${result.stdout}\n${readFileSync(join(dir, 'capacity.csv'), 'utf8')}`).toContain('flex');
    expect(group.capacity).toBeCloseTo(flex!.capacity!, 6);
    if (standard!.capacity !== null) expect(flex!.capacity!).toBeLessThan(standard!.capacity);
    expect(result.stdout).toContain(`s/${SLOTS_MODEL}/flex (weight 1)`);
    // Every step ran both tiers at half the total each; each tier's share is stored for --reevaluate.
    const steps = JSON.parse(readFileSync(join(dir, 'capacity-steps.json'), 'utf8')) as CapacityStepsFile;
    expect(steps.groups.map((g) => g.group)).toEqual([standard!.group, flex!.group]);
    expect(steps.groups[0]!.steps[0]!.load).toBeCloseTo(10, 6);
    // Both tiers' parts of every step had the step warmup (2 s: the first block and 2 more untested).
    expect(group.step_warmup_ms).toBe(2000);
    for (const tier of steps.groups) {
      expect(tier.step_warmup_ms).toBe(2000);
      for (const step of tier.steps) expect(step.ramp_blocks).toBe(3);
    }
  }, 240_000);
});
