/**
 * The runner's behaviour in virtual time: the whole runner (schedules, phases, workloads, collector,
 * finisher, early stops) on a ManualClock, with the client layer replaced by a scripted one that answers
 * after scripted virtual delays (test/helpers/scripted-client.ts). Minutes of schedule finish in
 * milliseconds, and every time is exact, so the assertions are exact: the right rate over N seconds, the
 * closed loop's relaunches, warmup left out, drops at max_concurrency, a shard's share, a session's turns
 * in order, Ctrl-C with its graceful stop, max_error_rate, a sweep's measured rates, stages. What a real
 * socket adds (timing truth: stamps, lag, the event loop) stays with the real-socket tests.
 */
import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/client/request-record.js';
import type { GroupSummary } from '../../../src/metrics/run-summary.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { type RunResult, runProfile } from '../../../src/runner/run-profile.js';
import type { ShardSpec } from '../../../src/schedule/shard.js';
import { ManualClock } from '../../../src/util/clock.js';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { type Script, type ScriptedTarget, scriptedTarget } from '../../helpers/scripted-client.js';
import { runInVirtualTime } from '../../helpers/virtual-time.js';

const START_MS = 1_000_000;
/** A tiny tokenizer: o200k's vocabulary takes seconds to load, and the runner's behaviour does not depend on it. */
const TOKENIZER = await loadHfTokenizer(
  new URL('../../fixtures/tokenizers/tiny-wordlevel.json', import.meta.url).pathname,
);

interface VirtualRun {
  readonly result: RunResult;
  readonly target: ScriptedTarget;
  /** Every record handed on (warmup included), with its schedule lag. */
  readonly records: { readonly record: RequestRecord; readonly lagMs: number }[];
  /** Virtual ms on the clock when the scenario started (scenario start = first schedule start) and when the run ended. */
  readonly scenarioStartMs: number;
  readonly endMs: number;
  readonly clock: ManualClock;
}

interface RunOptions {
  readonly script?: Script;
  readonly shard?: ShardSpec;
  /** Ctrl-C this long after the first scenario starts (virtual ms). */
  readonly interruptAfterMs?: number;
}

async function run(scenarios: string, options: RunOptions = {}): Promise<VirtualRun> {
  const clock = new ManualClock(START_MS);
  const target = scriptedTarget(options.script);
  const profile = resolveProfileText(`name: virtual\nscenarios:\n${scenarios}`, 'virtual.yaml');
  const records: { record: RequestRecord; lagMs: number }[] = [];
  const interrupt = new AbortController();
  let scenarioStartMs = Number.NaN;
  const work = runProfile({
    profile,
    target: { baseUrl: 'http://scripted.invalid', apiKey: null },
    control: { interrupt: interrupt.signal, shard: options.shard ?? null },
    env: {
      clock,
      cpuProbe: null,
      version: 'test',
      deps: target.deps,
      tokenizer: TOKENIZER,
      events: {
        onScenarioStart: () => {
          if (!Number.isNaN(scenarioStartMs)) return;
          scenarioStartMs = clock.nowMs();
          const after = options.interruptAfterMs;
          if (after !== undefined) clock.setTimer(() => interrupt.abort(), after);
        },
        onRecord: (record, _group, values) => records.push({ record: { ...record }, lagMs: values.schedule_lag_us }),
      },
    },
  });
  const result = await runInVirtualTime(clock, work);
  return { result, target, records, scenarioStartMs, endMs: clock.nowMs(), clock };
}

function group(result: RunResult, index = 0): GroupSummary {
  const found = result.groups[index];
  if (found === undefined) throw new Error(`no group ${index}`);
  return found;
}

/** Send times relative to the first send, in ms. */
const offsets = (target: ScriptedTarget): number[] => {
  const first = target.sends[0]?.atMs ?? 0;
  return target.sends.map((send) => send.atMs - first);
};

const userText = (body: Readonly<Record<string, unknown>>): string =>
  JSON.stringify((body['messages'] as { role: string; content: unknown }[]).filter((m) => m.role === 'user'));

describe('the runner in virtual time', () => {
  it('open loop: 10/s over 5 virtual seconds launches 50 requests 100 ms apart, each on time', async () => {
    const { result, target, records } = await run(`  - name: open
    models: [m]
    load: { mode: rate, rate: 10, arrival: constant }
    duration: 5s
    prompt: { input_tokens: 8 }
`);
    expect(target.sends).toHaveLength(50);
    expect(offsets(target)).toEqual(Array.from({ length: 50 }, (_, i) => i * 100));
    const g = group(result);
    expect(g.requests).toMatchObject({ ok: 50, failed: 0, dropped: 0 });
    // Scripted: first token 50 ms after the send, 5 tokens 10 ms apart.
    expect(g.metrics.ttft_ms?.p50).toBeCloseTo(50, 0);
    expect(g.metrics.e2e_ms?.max).toBeCloseTo(90, 0);
    expect(g.metrics.itl_ms?.p50).toBeCloseTo(10, 0);
    // In virtual time nothing is late: the send is the intended start.
    for (const { record, lagMs } of records) {
      expect(record.sentUs).toBe(record.launchUs);
      expect(record.latencyStartUs).toBe(record.launchUs);
      expect(lagMs).toBe(0);
    }
    expect(result.complete).toBe(true);
    expect(result.endedAtWallMs - result.startedAtWallMs).toBeGreaterThanOrEqual(4990);
  });

  it('closed loop: 3 users of 200 ms requests over 2 s relaunch on each end: 30 requests, never more than 3 at once', async () => {
    const { result, target, records } = await run(
      `  - name: closed
    models: [m]
    load: { mode: concurrency, concurrency: 3 }
    duration: 2s
    prompt: { input_tokens: 8 }
`,
      { script: () => ({ ttftMs: 200, outputTokens: 1 }) },
    );
    expect(target.maxInFlight).toBe(3);
    expect(offsets(target)).toEqual(Array.from({ length: 30 }, (_, i) => Math.floor(i / 3) * 200));
    expect(group(result).requests).toMatchObject({ ok: 30, failed: 0, dropped: 0 });
    // No schedule to be late against: latencies start at the send.
    for (const { record } of records) expect(record.latencyStartUs).toBe(record.sentUs);
  });

  it('warmup: its requests run first and are counted in nothing', async () => {
    const { result, target, records, scenarioStartMs } = await run(`  - name: warm
    models: [m]
    load: { mode: rate, rate: 10, arrival: constant }
    warmup: 1s
    duration: 2s
    prompt: { input_tokens: 8 }
`);
    const warmup = records.filter(({ record }) => record.warmup);
    const measured = records.filter(({ record }) => !record.warmup);
    expect(warmup).toHaveLength(10);
    expect(measured).toHaveLength(20);
    expect(target.sends).toHaveLength(30);
    const lastWarmupEndUs = Math.max(...warmup.map(({ record }) => record.endUs));
    for (const { record } of measured) expect(record.launchUs).toBeGreaterThanOrEqual(lastWarmupEndUs);
    // The measured phase starts once the warmup's last request ended (sent at 900 ms, 90 ms long).
    expect(Math.min(...measured.map(({ record }) => record.launchUs)) / 1000 - scenarioStartMs).toBe(990);
    const g = group(result);
    expect(g.requests).toMatchObject({ ok: 20, failed: 0 });
    expect(g.metrics.e2e_ms?.count).toBe(20);
  });

  it('warmup: the groups of a scenario start their measured parts together, however long their warmup answers take', async () => {
    // flex answers in 2 s, default in 90 ms: each group's warmup ends when its own answers are in, and the
    // measured parts wait for the slowest, so the tiers are measured side by side, as they are loaded.
    const { result, records, scenarioStartMs } = await run(
      `  - name: tiers
    models: [m]
    tiers: [default, flex]
    load: { mode: rate, rate: 10, arrival: constant }
    warmup: 1s
    duration: 2s
    prompt: { input_tokens: 8 }
`,
      { script: (_n, send) => (send.body['service_tier'] === 'flex' ? { ttftMs: 2000, outputTokens: 1 } : {}) },
    );
    const firstMeasuredMs = (groupIndex: number): number =>
      Math.min(
        ...records
          .filter(({ record }) => !record.warmup && record.groupIndex === groupIndex)
          .map(({ record }) => record.launchUs),
      ) /
        1000 -
      scenarioStartMs;
    // flex's last warmup request: sent at 900 ms, answered 2,000 ms later.
    expect(firstMeasuredMs(0)).toBe(2900);
    expect(firstMeasuredMs(1)).toBe(2900);
    expect(group(result, 0).requests).toMatchObject({ ok: 20 });
    expect(group(result, 1).requests).toMatchObject({ ok: 20 });
  });

  it('drops: arrivals that find max_concurrency requests in flight are counted, never sent late', async () => {
    const { result, target } = await run(
      `  - name: drops
    models: [m]
    load: { mode: rate, rate: 10, arrival: constant, max_concurrency: 2 }
    duration: 2s
    prompt: { input_tokens: 8 }
`,
      { script: () => ({ ttftMs: 1000, outputTokens: 1 }) },
    );
    // Arrivals at 0, 100, ..., 1900 ms; each request holds its slot 1 s: sent at 0, 100, 1000, 1100.
    expect(offsets(target)).toEqual([0, 100, 1000, 1100]);
    expect(target.maxInFlight).toBe(2);
    expect(group(result).requests).toMatchObject({ ok: 4, dropped: 16 });
  });

  it("shards: each sends its share, and the shards together send the single run's prompts", async () => {
    const scenario = `  - name: shards
    models: [m]
    load: { mode: rate, rate: 10, arrival: constant }
    duration: 2s
    prompt: { input_tokens: 16 }
`;
    const whole = await run(scenario);
    const first = await run(scenario, { shard: { index: 1, count: 2 } });
    const second = await run(scenario, { shard: { index: 2, count: 2 } });
    expect(whole.target.sends).toHaveLength(20);
    expect(first.target.sends).toHaveLength(10);
    expect(second.target.sends).toHaveLength(10);
    // Half the rate each: 200 ms apart.
    expect(offsets(first.target)).toEqual(Array.from({ length: 10 }, (_, i) => i * 200));
    const prompts = (r: VirtualRun): string[] => r.target.sends.map((send) => userText(send.body));
    const shared = prompts(first).filter((p) => prompts(second).includes(p));
    expect(shared).toEqual([]);
    expect([...prompts(first), ...prompts(second)].sort()).toEqual([...prompts(whole)].sort());
  });

  it('sessions: turns in order, each later turn sent its think time after the answer, with no schedule lag', async () => {
    const { target, records } = await run(`  - name: chat
    models: [m]
    load: { mode: concurrency, concurrency: 1 }
    requests: 2
    prompt: { input_tokens: 10 }
    session: { turns: 3, think_time: 500ms, user_tokens: 5 }
`);
    expect(target.sends.map((send) => send.record.labels?.['turn'])).toEqual(['1', '2', '3', '1', '2', '3']);
    // Each turn carries the conversation so far: 1, 3, 5 messages.
    expect(target.sends.map((send) => (send.body['messages'] as unknown[]).length)).toEqual([1, 3, 5, 1, 3, 5]);
    // 90 ms answer + 500 ms think: turns at 0, 590, 1180; the next session at once after the last turn.
    expect(offsets(target)).toEqual([0, 590, 1180, 1270, 1860, 2450]);
    const later = records.filter(({ record }) => record.labels?.['turn'] !== '1');
    expect(later).toHaveLength(4);
    for (const { lagMs } of later) expect(lagMs).toBeNaN();
  });

  it('Ctrl-C: scheduling stops at once, requests in flight get the graceful stop, then end as timeouts', async () => {
    const { result, target, endMs, scenarioStartMs } = await run(
      `  - name: stop
    models: [m]
    load: { mode: rate, rate: 10, arrival: constant }
    duration: 60s
    graceful_stop: 2s
    prompt: { input_tokens: 8 }
`,
      { script: () => ({ ttftMs: 5000, outputTokens: 1 }), interruptAfterMs: 1050 },
    );
    expect(target.sends).toHaveLength(11);
    expect(result.complete).toBe(false);
    expect(result.interrupted).toBe(true);
    expect(result.stopped?.reason).toBe('interrupted');
    expect(result.stopped?.at_s).toBeCloseTo(1.05, 2);
    // Aborted when the graceful stop ran out (2 s after the interrupt): timeouts of phase `total`.
    const g = group(result);
    expect(g.requests.failed).toBe(11);
    expect(g.requests.errors).toMatchObject({ timeout: 11 });
    expect(endMs - scenarioStartMs).toBeCloseTo(3050, 0);
  });

  it('max_error_rate: the run stops on the first tick that sees the rate exceeded', async () => {
    const { result, target } = await run(
      `  - name: failing
    models: [m]
    load: { mode: rate, rate: 10, arrival: constant }
    duration: 60s
    max_error_rate: { rate: 0.5, min_requests: 10 }
    prompt: { input_tokens: 8 }
`,
      { script: () => ({ ttftMs: 50, error: 'http_5xx' }) },
    );
    // Ten requests failed by 950 ms; the tick at 1 s stops the run before the arrival at 1 s.
    expect(result.stopped?.reason).toBe('max_error_rate');
    expect(result.stopped?.at_s).toBeCloseTo(1, 1);
    expect(target.sends).toHaveLength(10);
    expect(group(result).requests.errors).toMatchObject({ http_5xx: 10 });
    expect(result.complete).toBe(false);
  });

  it('sweep: the rate phase runs between the measured one-at-a-time and throughput rates', async () => {
    const { result, target } = await run(
      `  - name: sweep
    models: [m]
    load: { mode: sweep, steps: 1, max_concurrency: 4 }
    duration: 2s
    prompt: { input_tokens: 8 }
`,
      { script: () => ({ ttftMs: 100, outputTokens: 1 }) },
    );
    const rates = Object.values(result.sweepRates ?? {});
    // One at a time: 10/s; four at a time: 40/s; one step between: 25/s.
    expect(rates).toHaveLength(1);
    expect(rates[0]).toBeCloseTo(25, 0);
    const [sync, throughput, rate] = result.groups;
    expect(sync?.requests.ok).toBe(20);
    expect(throughput?.requests.ok).toBe(80);
    expect(throughput && target.maxInFlight).toBe(4);
    expect(rate?.requests.ok).toBeGreaterThanOrEqual(48);
    expect(rate?.requests.ok).toBeLessThanOrEqual(52);
  });

  it('stages: the rate ramps as the stages say', async () => {
    const { target } = await run(`  - name: ramp
    models: [m]
    load: { mode: rate, arrival: constant, stages: [{ duration: 1s, rate: 10 }, { duration: 1s, rate: 30 }] }
    prompt: { input_tokens: 8 }
`);
    // Ramps 0 -> 10/s over the first second (5 arrivals), 10 -> 30/s over the second (20 arrivals).
    const times = offsets(target);
    expect(times.filter((t) => t < 1000).length).toBeCloseTo(5, -1);
    expect(target.sends).toHaveLength(25);
  });
});
