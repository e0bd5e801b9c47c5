/**
 * `run --workers 2` with a duration-bound `without_replacement` dataset that runs out: each worker goes
 * past the end of the supply at its own request number (their requests interleave), but summary.json says
 * it once, at the smallest, the request number one thread reports. Also the merge of such warnings alone.
 */
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HarnessHealth } from '../../../src/metrics/run-summary.js';
import { mergeRanOutWarnings } from '../../../src/runner/workload-warnings.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../../helpers/run-folder.js';
import { startVllmLikeServer, VLLM_MODEL, type VllmLikeServer } from '../../helpers/vllm-like-server.js';

const SAMPLE = resolve(import.meta.dirname, '../../../profiles/datasets/sharegpt-sample.json');
const folder = useRunFolder('inferbench-workers-ran-out-');
let server: VllmLikeServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const ranOut = (entries: number, request: number, scenario = 'few') =>
  `scenario ${scenario}: prompt.dataset (sample: without_replacement) ran out of its ${entries} entries at request ${request}; later requests reused them in the same seeded order`;

const health = (warnings: string[]): HarnessHealth => ({
  event_loop_delay_ms: { p50: 0, p99: 0, max: 0 },
  cpu_utilization: 0,
  schedule_lag_ms: { p50: 0, p99: 0, max: 0 },
  warnings,
  client_bottleneck: false,
});

describe('a dataset that runs out with --workers', () => {
  it('is said once, at the smallest request number', async () => {
    server = await startVllmLikeServer({ tokens: 2 });
    const profile = folder.writeProfile(
      'exhaust',
      // The tiny tokenizer: token counts are not the subject, and o200k would build in each worker thread.
      // An open loop of 20/s: the ~30 requests of 1.5 s run the 3 entries out in both workers; a closed loop
      // on this server, which answers at once, sent as many requests as two threads could (seconds of CPU).
      `name: exhaust
target: { tokenizer: ${JSON.stringify(TINY_TOKENIZER)} }
scenarios:
  - name: few
    models: [${VLLM_MODEL}]
    load: { mode: rate, rate: 20, arrival: constant }
    duration: 1500ms
    prompt: { dataset: { path: ${SAMPLE}, limit: 3, sample: without_replacement } }
`,
    );
    const out = join(folder.dir, 'exhaust');
    const result = await runCliInProcess(['run', profile, '--base-url', server.url, '--out', out, '--workers', '2'], {
      cwd: folder.dir,
    });
    expect(result.code, result.stderr).toBe(0);
    const summary = readSummary(out);
    expect(server.bodies.length).toBeGreaterThan(8);
    const said = summary.harness.warnings.filter((warning) => warning.includes('ran out'));
    expect(said).toEqual([ranOut(3, 4)]);
  }, 60_000);

  it('keeps one per scenario and dataset, the smallest, and every other warning of each worker', () => {
    const merged = mergeRanOutWarnings([
      health([ranOut(3, 5), 'schedule lag p99 was 12 ms', ranOut(7, 9, 'other')]),
      health([ranOut(3, 4), ranOut(7, 8, 'other')]),
      health([ranOut(3, 6)]),
    ]);
    expect(merged.warnings).toEqual([ranOut(3, 4), ranOut(7, 8, 'other')]);
    expect(merged.healths.map((h) => h.warnings)).toEqual([['schedule lag p99 was 12 ms'], [], []]);
  });
});
