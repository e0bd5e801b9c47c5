/**
 * `inferbench capacity` with target.server_metrics, the command whole, against the emulator in this
 * process (small-fast-8b cut to 2 slots: at 2 streams nothing waits, at 4 two requests do): no warning
 * that capacity does not scrape; an endpoint nobody listens on is counted over the steps in summary.json
 * `server_metrics` and named in one warning, changing nothing else; every step scraped the emulator's /metrics over its own window, whether
 * the harness spoiled it or not, and summary.json, capacity-steps.json and capacity.csv record its running
 * and waiting as the emulator exposed them with the server objective `waiting.max: 0` checked over it;
 * the table says what the server showed at the knee. On a quiet machine the search is 2 PASS, 4 FAIL on
 * the server objective ("waiting 0 -> 2"); on a loaded one a step the harness spoiled is run again, and
 * the decisions are asserted where the search made them (test/integration/server-metrics/capacity-server.test.ts
 * makes them with a healthy harness). `--reevaluate` decides the stored windows under a looser bound.
 * Slow on purpose (a real search: steps of seconds on the real clock): not in test:fast.
 * @module-tag slow
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/emulator.js';
import type { CapacityStepsFile, CapacitySummary } from '../../src/metrics/capacity-summary.js';
import type { ServerConceptSummary } from '../../src/metrics/server-summary.js';
import { parseCsvRecords } from '../../src/util/csv-records.js';
import { runCliInProcess } from '../helpers/cli.js';
import { catalogWithCapacity, type RunTarget, startEmulatorWith } from '../helpers/in-process-emulator.js';
import { readSummary, TINY_TOKENIZER, useRunFolder } from '../helpers/run-folder.js';

const folder = useRunFolder('inferbench-capacity-server-');
let emulator: Emulator;
let target: RunTarget;

beforeAll(async () => {
  // 100 tokens/s: few chunks a second, so that the harness sharing its process stays on time.
  ({ emulator, target } = await startEmulatorWith(
    catalogWithCapacity({ 'small-fast-8b': { slots: 2, jitter: 0, decodeTokensPerS: 100 } }),
  ));
});
afterAll(async () => {
  await emulator.close();
});

const GROUP = 's/small-fast-8b/-';
/** An endpoint nobody listens on: every scrape of it fails (connection refused). */
const DEAD = 'http://127.0.0.1:1/metrics';

function gauge(value: ServerConceptSummary | undefined) {
  if (value?.kind !== 'gauge') throw new Error(`expected a gauge, got ${JSON.stringify(value)}`);
  return value;
}

describe('capacity with target.server_metrics', () => {
  it('scrapes every step and records the server, the server objective and the knee', async () => {
    const path = folder.writeProfile(
      'server',
      `name: server
target:
  tokenizer: ${JSON.stringify(TINY_TOKENIZER)}
  server_metrics: [{ url: /metrics, interval: 200ms }, { url: "${DEAD}", interval: 200ms, preset: vllm }]
scenarios:
  - name: s
    models: [small-fast-8b]
    load: { mode: concurrency, concurrency: 2 }
    duration: 10s
    prompt: { input_tokens: 32, output_tokens: 8 }
    request: { max_completion_tokens: 8 }
capacity:
  slo: { error_rate: 50%, waiting.max: 0 }
  start: 2
  max_steps: 2
  max_step_duration: 4s
  step_warmup: 500ms
  block: 500ms
`,
    );
    const dir = join(folder.dir, 'search');
    const result = await runCliInProcess(['capacity', path, '--out', dir, '--steps'], { target });
    expect(result.stderr).not.toMatch(/does not scrape/);
    expect(result.code).toBe(0);
    // The dead endpoint: counted over every step, said once, and the search goes on as without it.
    const summary = readSummary(dir);
    const [live, dead] = summary.server_metrics ?? [];
    expect(live).toMatchObject({ engine: 'vllm', failures: 0 });
    expect(live?.scrapes_ok).toBeGreaterThan(summary.capacity?.groups[0]?.steps.length ?? 0);
    expect(dead).toMatchObject({ url: DEAD, scrapes_ok: 0 });
    expect(dead?.failures).toBe(dead?.attempts);
    // Every step scraped it at least once, at its start.
    expect(dead?.failures).toBeGreaterThanOrEqual(summary.capacity?.groups[0]?.steps.length ?? 1);
    const said = result.stderr.split('\n').filter((line) => line.includes(`server metrics ${DEAD}`));
    expect(said).toEqual([
      expect.stringMatching(
        new RegExp(
          `^inferbench: warning: server metrics ${DEAD}: ${dead?.failures} of ${dead?.attempts} scrapes failed over the search's steps \\(`,
        ),
      ),
    ]);
    expect(summary.harness.warnings).toContain(said[0]?.replace('inferbench: warning: ', ''));

    const capacity = readSummary(dir).capacity as CapacitySummary;
    expect(capacity.objectives).toContainEqual({ key: 'waiting.max', limit: 0, allowed: 0 });
    const group = capacity.groups[0];
    if (group === undefined) throw new Error('no group');
    expect(group.steps.length).toBeGreaterThan(0);
    // Every step's window (spoiled ones too), as the emulator exposed it: its 2 slots busy, nothing
    // waiting at 2 streams, 2 requests at 4.
    const queued = (load: number) => (load === 2 ? 0 : 2);
    for (const step of group.steps) {
      expect(gauge(step.server?.concepts.waiting)).toMatchObject({
        max: queued(step.load),
        sources: ['vllm:num_requests_waiting'],
      });
      expect(gauge(step.server?.concepts.running).max).toBe(2);
      expect(step.server_checks).toEqual([
        { key: 'waiting.max', value: queued(step.load), limit: 0, held: step.load === 2 },
      ]);
    }
    const stored = JSON.parse(readFileSync(join(dir, 'capacity-steps.json'), 'utf8')) as CapacityStepsFile;
    expect(stored.groups[0]?.steps.map((s) => gauge(s.server?.concepts.waiting).max)).toEqual(
      group.steps.map((s) => queued(s.load)),
    );
    const csv = parseCsvRecords(readFileSync(join(dir, 'capacity.csv'), 'utf8')).records;
    expect(csv.map((row) => [row.load, row.server_waiting_max, row['waiting.max_held']])).toEqual(
      group.steps.map((s) => [String(s.load), String(queued(s.load)), String(s.load === 2)]),
    );
    // The table's knee line, whatever the search could decide on this machine.
    expect('server_at_knee' in group).toBe(true);
    expect(result.stdout).toContain(`${GROUP}: server at the knee`);

    const decided = group.steps.filter((s) => s.outcome !== 'inconclusive').map((s) => [s.load, s.outcome]);
    if (decided.length === 2) {
      expect(decided).toEqual([
        [2, 'pass'],
        [4, 'fail'],
      ]);
      expect(group).toMatchObject({ capacity: 2, binding: 'waiting.max', interval: [2, 4] });
      expect(group.server_at_knee).toMatch(/^waiting 0 -> 2(, |$)/);
      expect(result.stdout).toContain(
        `${GROUP}: server at the knee (2.00 pass -> 4.00 fail streams): ${group.server_at_knee}`,
      );
    }

    // A looser bound answered from the stored windows, sending nothing: no step fails on it.
    const loose = await runCliInProcess([
      'capacity',
      '--reevaluate',
      dir,
      '--slo',
      'error_rate=50%',
      '--slo',
      'waiting.max=5',
      '--json',
    ]);
    expect(loose.code).toBe(0);
    const again = (JSON.parse(loose.stdout) as CapacitySummary).groups[0];
    expect(again?.steps.every((s) => s.server_checks?.[0]?.held === true)).toBe(true);
    expect(again?.steps.some((s) => s.outcome === 'fail')).toBe(false);
    // Its own SLO again: the same decisions as online.
    const same = await runCliInProcess(['capacity', '--reevaluate', dir, '--json']);
    const replayed = (JSON.parse(same.stdout) as CapacitySummary).groups[0];
    expect(replayed?.steps.map((s) => s.outcome)).toEqual(group.steps.map((s) => s.outcome));
    expect(replayed?.server_at_knee).toBe(group.server_at_knee);
  });
});
