/**
 * A capacity search that scrapes target.server_metrics, as the CLI composes it (runCapacity, then
 * capacitySummary and the capacity table, CSV and HTML section), on the real clock against the emulator
 * in this process (small-fast-8b cut to 2 slots: at 2 streams nothing waits, at 4 two requests do). Every
 * step records the emulator's running and waiting over its window, the server objective `waiting.max: 0`
 * fails the step at 4 streams whose request tests passed, binds with the bracket 2 - 4, and the outputs
 * say what the server showed at the knee ("waiting 0 -> 2"). The harness's own health is a stub that is
 * always healthy: its subject is the server's side, and on a loaded 2-core machine the real monitor calls
 * steps of an in-process emulator spoiled at random (a spoiled step is run again, up to 3 times, then ends
 * the search); test/cli/capacity-server-metrics.test.ts runs the command whole.
 * Slow on purpose (two real steps of about 2 s): not in test:fast.
 * @module-tag slow
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverKnee } from '../../../src/aggregate/capacity/server-knee.js';
import type { Emulator } from '../../../src/emulator/emulator.js';
import type { ServerConceptSummary } from '../../../src/metrics/server-summary.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { formatCapacityCsv } from '../../../src/report/capacity/capacity-csv.js';
import { formatCapacityTable } from '../../../src/report/capacity/capacity-table.js';
import { capacitySection } from '../../../src/report/html/capacity-section.js';
import { capacitySummary } from '../../../src/runner/capacity/capacity-result.js';
import { capacityObjectives, capacityServerObjectives } from '../../../src/runner/capacity/objectives.js';
import { runCapacity } from '../../../src/runner/capacity/run-capacity.js';
import type { HarnessMonitor } from '../../../src/runner/harness-monitor.js';
import { defaultRunnerDeps } from '../../../src/runner/runner-deps.js';
import { systemClock } from '../../../src/util/clock.js';
import { parseCsvRecords } from '../../../src/util/csv-records.js';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { catalogWithCapacity, EMULATOR_API_KEY, startEmulatorWith } from '../../helpers/in-process-emulator.js';
import { TINY_TOKENIZER } from '../../helpers/run-folder.js';

let emulator: Emulator;
beforeAll(async () => {
  ({ emulator } = await startEmulatorWith(
    catalogWithCapacity({ 'small-fast-8b': { slots: 2, jitter: 0, decodeTokensPerS: 100 } }),
  ));
});
afterAll(async () => {
  await emulator.close();
});

/** Always healthy (see the file comment). */
function healthyHarness(): HarnessMonitor {
  return {
    recordScheduleLagUs: () => undefined,
    finish: () => ({
      event_loop_delay_ms: { p50: 0, p99: 0, max: 0 },
      cpu_utilization: 0,
      schedule_lag_ms: { p50: 0, p99: 0, max: 0 },
      warnings: [],
      client_bottleneck: false,
    }),
  };
}

function gauge(value: ServerConceptSummary | undefined) {
  if (value?.kind !== 'gauge') throw new Error(`expected a gauge, got ${JSON.stringify(value)}`);
  return value;
}

describe('a capacity search with target.server_metrics', () => {
  it('records the server per step, fails a step on a server objective, and names the knee in every output', async () => {
    const profile = resolveProfileText(
      `name: server
target: { server_metrics: [{ url: /metrics, interval: 200ms }] }
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
      'server.yaml',
    );
    const objectives = capacityObjectives(profile.capacity.slo, 'capacity.slo');
    const serverObjectives = capacityServerObjectives(profile.capacity.slo, 'capacity.slo');
    const groups = await runCapacity(
      {
        run: {
          target: { baseUrl: emulator.url, apiKey: EMULATOR_API_KEY },
          env: {
            clock: systemClock,
            cpuProbe: null,
            version: 'test',
            deps: { ...defaultRunnerDeps, startHarnessMonitor: healthyHarness },
            tokenizer: await loadHfTokenizer(TINY_TOKENIZER),
          },
        },
        interrupt: new AbortController().signal,
        serverMetricsEnv: {},
        profile,
        spec: profile.capacity,
        objectives,
        serverObjectives,
      },
      {},
    );
    const summary = capacitySummary(groups, objectives, profile.capacity, serverObjectives);
    const group = summary.groups[0];
    if (group === undefined) throw new Error('no group');
    expect(group.steps.map((s) => [s.load, s.outcome])).toEqual([
      [2, 'pass'],
      [4, 'fail'],
    ]);
    const [low, high] = group.steps;
    // Each window as the emulator exposed it: its 2 slots busy, nothing waiting at 2 streams, 2 at 4.
    expect(gauge(low?.server?.concepts.waiting)).toMatchObject({ max: 0, sources: ['vllm:num_requests_waiting'] });
    expect(gauge(high?.server?.concepts.waiting).max).toBe(2);
    expect(gauge(low?.server?.concepts.running).max).toBe(2);
    expect(gauge(high?.server?.concepts.running).max).toBe(2);
    expect(low?.server_checks).toEqual([{ key: 'waiting.max', value: 0, limit: 0, held: true }]);
    expect(high?.server_checks).toEqual([{ key: 'waiting.max', value: 2, limit: 0, held: false }]);
    // The request tests passed at 4 streams; the server objective failed the step, and binds.
    expect(high?.tests.map((t) => t.decision)).toEqual(['pass']);
    expect(high?.reason).toMatch(/^server over its bound: waiting.max 2 > 0; tests: PASS/);
    expect(summary.objectives).toEqual([
      { key: 'error_rate', limit: 0.5, allowed: 0.5 },
      { key: 'waiting.max', limit: 0, allowed: 0 },
    ]);
    expect(group).toMatchObject({ capacity: 2, binding: 'waiting.max', interval: [2, 4], last_pass: 2, first_fail: 4 });
    expect(group.server_at_knee).toBe(serverKnee(low?.server ?? null, high?.server ?? null));
    expect(group.server_at_knee).toMatch(/^waiting 0 -> 2(, |$)/);

    const table = formatCapacityTable(summary, { steps: true });
    expect(table).toContain(
      `s/small-fast-8b/-: server at the knee (2.00 pass -> 4.00 fail streams): ${group.server_at_knee}`,
    );
    expect(table).toContain('SLO: error_rate < 50%, waiting.max <= 0');
    expect(table).toMatch(/step 2 {2}4\.00 streams {2}FAIL {2}server over its bound.*\[server: waiting 2, /);

    const parsed = parseCsvRecords(formatCapacityCsv(summary));
    expect(parsed.columns.filter((c) => c.startsWith('server_') || c.startsWith('waiting.') || c === 'knee')).toEqual([
      'waiting.max_value',
      'waiting.max_held',
      'server_waiting_max',
      'server_kv_cache_usage_max',
      'server_preemptions_per_s',
      'server_gpu_util_mean',
      'server_running_max',
      'server_queue_time_p99_ms',
      'knee',
      'server_at_knee',
    ]);
    const csv = parsed.records;
    expect(
      csv.map((row) => [
        row.server_waiting_max,
        row.server_running_max,
        row['waiting.max_value'],
        row['waiting.max_held'],
        row.knee,
      ]),
    ).toEqual([
      ['0', '2', '0', 'true', 'last_pass'],
      ['2', '2', '2', 'false', 'first_fail'],
    ]);
    expect(csv.map((row) => row.server_at_knee)).toEqual([group.server_at_knee, group.server_at_knee]);

    const section = JSON.stringify(capacitySection(summary));
    expect(section).toContain(JSON.stringify(['Server at the knee', group.server_at_knee]));
    expect(section).toContain('s/small-fast-8b/-: requests on the server against offered load');
    expect(section).toContain('SLO waiting.max <= 0');
  });
});
