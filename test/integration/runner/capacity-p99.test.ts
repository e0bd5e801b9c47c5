/**
 * Regression ("capacity under a p99 SLO can end with no answer"): a p99 step needs 292 clean requests to
 * PASS (582 on average at a load that holds), so a search whose start load cannot gather them within a
 * step ended "inconclusive at <start>" with no capacity. Against a server of known capacity
 * (test/helpers/slots-server.ts: 16 slots x 110 ms, 145 req/s; TTFT 55 ms while nothing waits, the limit
 * 165 ms), with steps capped at 8 s and a calibrated start of about 9 req/s (under 50 requests tested in a
 * step), the search now raises its start to the lowest load a p99 can decide at within the cap (117 req/s)
 * and finds the truth (117 pass, 234 and 165 fail, 139 pass, 151 fail: 139 to 151 req/s). Time is scaled
 * from the first version (8 slots x 400 ms, 20 req/s, 40 s steps: 77 s), then from 16 slots x 200 ms with
 * 12 s steps (33 s): the same rule and claims in 28 s on an idle machine (a calibration and five steps;
 * more when a spoiled step is run again). A step just over the capacity still fails before it could pass
 * on the empty queue it starts with: at 151 req/s (3.7% over) a request waits over the 110 ms of slack
 * after about 3 s (110 ms / 3.7%), a pass needs 292 clean requests after the untested 2 s (3.9 s). On a
 * loaded machine the harness's self-check spoils the steps (INCONCLUSIVE, 3 retries) and the test fails
 * saying so, as the first version did.
 * @module-tag timing
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
  server = await startSlotsServer({ slots: 16, serviceMs: 110 });
});
afterAll(async () => {
  await server.close();
});

describe('inferbench capacity under a p99 SLO', () => {
  it('raises its start to a load a p99 step can decide at, and finds a 145 req/s server within 10%', async () => {
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
  slo: { ttft_ms.p99: 165ms }
  step_duration: 8s
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
    // The calibration measured one stream's rate (1000 / e2e, e2e at least 110 ms): a p99 cannot decide
    // there in 8 s.
    expect(group.calibration!.start_load).toBeLessThanOrEqual(10);
    // 582 requests in the 5 s an 8 s step tests (untested: the first block and the 1 s warmup, and the
    // last block): 116.4, up to 3 digits 117 req/s, where the search started.
    expect(group.lowest_load).toBe(117);
    expect(group.steps[0]!.load).toBe(117);
    expect(result.stderr).toContain(
      'start raised: 117 is the lowest load at which ttft_ms.p99 can decide within a step of 8 s (582 requests after its untested 2 s)',
    );
    expect(group.max_step_duration_ms).toBe(8_000);
    expect(group.end_reason, result.stdout).not.toMatch(/inconclusive|undecided/);
    expect(group.capacity, result.stdout).not.toBeNull();
    expect(group.capacity!).toBeGreaterThan(server.capacityPerS * 0.9);
    expect(group.capacity!).toBeLessThan(server.capacityPerS * 1.1);
    expect(group.interval![0]).toBeLessThanOrEqual(server.capacityPerS);
    expect(group.interval![1]).toBeGreaterThanOrEqual(server.capacityPerS * 0.95);
  }, 180_000);
});
