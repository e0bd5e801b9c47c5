/**
 * The capacity interval and the step decisions against real servers on sockets (the statistics alone are
 * checked over hundreds of simulated searches in test/unit/aggregate/capacity/capacity-coverage.test.ts):
 *
 * - seeded searches against a server of known capacity (test/helpers/slots-server.ts, 4 slots x 100 ms =
 *   40 req/s): the capacity within 10% of the truth and the truth inside the reported 95% interval. Three
 *   searches to a 10% bracket fit the time a test may take (about 20 s each); the 9 of 10 (to 5%)
 *   is measured by `npm run bench capacity` (10 searches). At least 2 of 3 must cover: with a true coverage
 *   of 95%, 3 of 3 happens in 86% of runs and 2 or more in 99.3%, so this fails on a broken interval, not
 *   on chance.
 * - misclassification against a server with a known TTFT distribution (test/helpers/known-latency-server.ts:
 *   a share of requests over the limit, drawn per request): steps at the edges of the indifference zone
 *   (5% and 15% over for a p90 SLO) decided as often wrongly as alpha and beta allow. Ten steps each: at an
 *   error rate of 5%, 3 or more wrong of 10 happens in 1.2% of runs.
 *
 * A step in which the harness was its own bottleneck (a loaded machine) is INCONCLUSIVE and is neither
 * right nor wrong; a search it ended is not counted (another seed is searched while time allows), and a
 * failure says how many were spoiled. 79 s on a quiet 2-core machine (104 s under load, with 5% brackets).
 * @module-tag timing
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapacityGroupSummary, CapacitySummary } from '../../../src/metrics/capacity-summary.js';
import { runCliInProcess } from '../../helpers/cli.js';
import {
  type KnownLatencyServer,
  oneStepProfile,
  startKnownLatencyServer,
} from '../../helpers/known-latency-server.js';
import { readSummary, useRunFolder } from '../../helpers/run-folder.js';
import { SLOTS_MODEL, type SlotsServer, startSlotsServer } from '../../helpers/slots-server.js';

const folder = useRunFolder('inferbench-capacity-coverage-');

async function capacityGroups(name: string, yaml: string, baseUrl: string): Promise<CapacityGroupSummary[]> {
  const path = folder.writeProfile(name, yaml);
  const dir = join(folder.dir, name);
  const result = await runCliInProcess(['capacity', path, '--base-url', baseUrl, '--out', dir], { cwd: folder.dir });
  expect(result.code, result.stderr).toBe(0);
  return (readSummary(dir).capacity as CapacitySummary).groups;
}

describe('capacity searches against a server of known capacity', () => {
  let server: SlotsServer;
  beforeAll(async () => {
    server = await startSlotsServer({ slots: 4, serviceMs: 100 });
  });
  afterAll(async () => {
    await server.close();
  });

  /** One seeded search; its capacity, interval and why it ended. */
  async function search(seed: number) {
    // TTFT is 50 ms while nothing waits; one request queued ahead adds 25 ms. From 25 the search runs 25,
    // 50, 35.4, 42.1, 38.6: no step within 1% over the truth, where a step of a few seconds ends before
    // its backlog builds (0.3 req/s over 40 queues one request in about 3 s) and can PASS. A 2 s step
    // warmup keeps the test short; the benchmark measures the default 5 s (`npm run bench capacity`).
    const [group] = await capacityGroups(
      `slots-${seed}`,
      `name: slots-${seed}
scenarios:
  - name: s
    models: [${SLOTS_MODEL}]
    load: { mode: rate, rate: 10, arrival: constant }
    duration: 10s
    seed: ${seed}
    prompt: { input_tokens: 16, output_tokens: 4 }
capacity:
  slo: { ttft_ms.p90: 75ms, error_rate: 10% }
  start: 25
  resolution: 10%
  step_duration: 15s
  step_warmup: 2s
  seed: ${seed}
`,
      server.url,
    );
    return { seed, capacity: group?.capacity ?? null, interval: group?.interval ?? null, end: group?.end_reason ?? '' };
  }

  it('finds 40 req/s within 10%, inside its interval in all but at most one of 3 seeded searches', async () => {
    const truth = server.capacityPerS;
    const found: Awaited<ReturnType<typeof search>>[] = [];
    // A search the busy harness ended (its steps INCONCLUSIVE) says nothing about the interval: the next
    // seed is searched instead, for as long as the time allows.
    const started = performance.now();
    for (
      let seed = 1;
      found.filter((f) => f.capacity !== null && !f.end.startsWith('inconclusive')).length < 3;
      seed++
    ) {
      if (seed > 3 && performance.now() - started > 100_000) break;
      found.push(await search(seed));
    }
    const searched = found.filter((f) => f.capacity !== null && !f.end.startsWith('inconclusive'));
    const report = JSON.stringify(found);
    expect(searched.length, `searches the busy harness spoiled: ${report}`).toBeGreaterThanOrEqual(2);
    for (const f of searched) expect(Math.abs((f.capacity as number) / truth - 1), report).toBeLessThanOrEqual(0.1);
    const covered = searched.filter((f) => f.interval !== null && f.interval[0] <= truth && truth <= f.interval[1]);
    expect(covered.length, report).toBeGreaterThanOrEqual(searched.length - 1);
  }, 240_000);
});

describe('capacity step decisions against a server with a known TTFT distribution', () => {
  let server: KnownLatencyServer;
  beforeAll(async () => {
    server = await startKnownLatencyServer({ fastMs: 10, slowMs: 80, slowShare: 0.05, seed: 12 });
  });
  afterAll(async () => {
    await server.close();
  });

  /** Ten one-step searches (one stream, which is both the start and the most allowed): each group's decision. */
  async function decisions(name: string, slowShare: number): Promise<string[]> {
    server.setSlowShare(slowShare);
    const groups = await capacityGroups(name, oneStepProfile(name, 10, 0), server.url);
    // The last step of each: a spoiled step is run again (up to 3 times) before it ends the search.
    return groups.map((group) => group.steps.at(-1)?.outcome ?? 'inconclusive');
  }

  it('FAILs a step 5% over a p90 limit (a true pass) and PASSes one 15% over (a true fail) at most 2 of 10 times', async () => {
    const truePass = await decisions('p0', 0.05);
    const trueFail = await decisions('p1', 0.15);
    const report = JSON.stringify({ truePass, trueFail, server: server.counts() });
    // A loaded machine spoils some steps (INCONCLUSIVE: the harness was its own bottleneck).
    for (const outcomes of [truePass, trueFail]) {
      expect(outcomes.filter((o) => o !== 'inconclusive').length, report).toBeGreaterThanOrEqual(5);
    }
    expect(truePass.filter((o) => o === 'fail').length, report).toBeLessThanOrEqual(2);
    expect(trueFail.filter((o) => o === 'pass').length, report).toBeLessThanOrEqual(2);
  }, 180_000);
});
