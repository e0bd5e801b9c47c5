/**
 * Regression ("capacity under a p99 SLO can end with no answer"): a p99 step needs 292 clean requests to
 * PASS (582 on average at a load that holds), so a search whose start load cannot gather them within a
 * step ended "inconclusive at <start>" with no capacity. Against a server of known capacity
 * (test/helpers/slots-server.ts: 8 slots x 400 ms, 20 req/s; TTFT 200 ms while nothing waits), with steps
 * capped at 40 s and a calibrated start of about 2.5 req/s (under 100 requests tested in a step), the
 * search now raises its start to the lowest load a p99 can decide at within the cap and finds the truth.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapacitySummary } from '../../../src/metrics/capacity-summary.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';
import { SLOTS_MODEL, startSlotsServer, type SlotsServer } from '../../helpers/slots-server.js';

const folder = useRunFolder('inferbench-capacity-p99-');
let server: SlotsServer;

beforeAll(async () => {
  server = await startSlotsServer({ slots: 8, serviceMs: 400 });
});
afterAll(async () => {
  await server.close();
});

describe('inferbench capacity under a p99 SLO', () => {
  it('raises its start to a load a p99 step can decide at, and finds a 20 req/s server within 10%', async () => {
    // step_duration is max_step_duration's older name: the same cap, accepted before and after the fix.
    const path = folder.writeProfile(
      'p99',
      `name: p99
scenarios:
  - name: s
    models: [${SLOTS_MODEL}]
    load: { mode: rate, rate: 10, arrival: constant }
    duration: 10s
    prompt: { input_tokens: 16, output_tokens: 4 }
capacity:
  slo: { ttft_ms.p99: 600ms }
  step_duration: 40s
  step_warmup: 1s
`,
    );
    const dir = join(folder.dir, 'p99');
    const result = await runCliInProcess(['capacity', path, '--base-url', server.url, '--out', dir, '--steps'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(0);
    const capacity = readSummary(dir).capacity as CapacitySummary;
    const group = capacity.groups[0]!;
    // The calibration measured one stream's rate (about 2.5 req/s): a p99 cannot decide there in 40 s.
    expect(group.calibration!.start_load).toBeLessThan(5);
    // 582 requests in the 37 s a 40 s step tests (untested: the first block and the 1 s warmup, and the
    // last block): 15.8 req/s, where the search started.
    expect(group.lowest_load).toBe(15.8);
    expect(group.steps[0]!.load).toBe(15.8);
    expect(result.stderr).toContain('start raised: 15.8 is the lowest load at which ttft_ms.p99 can decide');
    expect(group.max_step_duration_ms).toBe(40_000);
    expect(group.end_reason, result.stdout).not.toMatch(/inconclusive|undecided/);
    expect(group.capacity, result.stdout).not.toBeNull();
    expect(group.capacity!).toBeGreaterThan(server.capacityPerS * 0.9);
    expect(group.capacity!).toBeLessThan(server.capacityPerS * 1.1);
    expect(group.interval![0]).toBeLessThanOrEqual(server.capacityPerS);
    expect(group.interval![1]).toBeGreaterThanOrEqual(server.capacityPerS * 0.95);
  }, 180_000);
});
