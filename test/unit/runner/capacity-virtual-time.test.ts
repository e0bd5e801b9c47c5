/**
 * The capacity search in virtual time: runCapacity and its steps (runner/capacity/) on a ManualClock,
 * against a scripted server of KNOWN capacity (test/helpers/scripted-slots.ts: 4 slots x 100 ms, so 40
 * requests per second, or 4 streams without queueing; TTFT = the queue wait + 50 ms). The truth is exact,
 * so are the assertions: the rate search finds 40 req/s within 10% (probing 10, 20, 40, then bisecting),
 * the stream search exactly 4 streams (and says it is below a min_capacity of 6), the tiers searched
 * together find flex (queued behind default) binding near 40 req/s, a previous capacity is confirmed from
 * one step below it, and the stored steps re-evaluated under the same SLO give the same decisions (a
 * stricter SLO never a higher capacity). Minutes of steps finish in seconds of real time. What only the
 * command line adds (the files written, exit 99, --reevaluate sending nothing, --confirm DIR) is proved by
 * test/cli/capacity-command.test.ts; the one real-socket search by test/integration/runner/capacity-p99.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type {
  CapacityGroupSummary,
  CapacityStepsFile,
  CapacitySummary,
} from '../../../src/metrics/capacity-summary.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import type { ResolvedProfile } from '../../../src/profile/resolved-profile.js';
import { formatCapacityTable } from '../../../src/report/capacity/capacity-table.js';
import { capacitySummary } from '../../../src/runner/capacity/capacity-result.js';
import { capacityObjectives } from '../../../src/runner/capacity/objectives.js';
import { capacityStepsFile, reevaluateCapacity } from '../../../src/runner/capacity/reevaluate.js';
import { type GroupCapacity, runCapacity } from '../../../src/runner/capacity/run-capacity.js';
import { ManualClock } from '../../../src/util/clock.js';
import { loadHfTokenizer } from '../../../src/util/hf-tokenizer.js';
import { scriptedTarget } from '../../helpers/scripted-client.js';
import { type ScriptedSlots, scriptedSlots } from '../../helpers/scripted-slots.js';
import { runInVirtualTime } from '../../helpers/virtual-time.js';

const START_MS = 1_000_000;
/** A tiny tokenizer: o200k's vocabulary takes seconds to load, and the search does not depend on it. */
const TOKENIZER = await loadHfTokenizer(
  new URL('../../fixtures/tokenizers/tiny-wordlevel.json', import.meta.url).pathname,
);

interface Search {
  readonly profile: ResolvedProfile;
  readonly groups: GroupCapacity[];
  readonly summary: CapacitySummary;
  readonly server: ScriptedSlots;
  /** Requests the server was sent, calibration included. */
  readonly sent: number;
}

function profileText(load: string, capacity: string, tiers = ''): string {
  return `name: virtual-capacity
scenarios:
  - name: s
    models: [m]
    load: ${load}
${tiers}    duration: 10s
    prompt: { input_tokens: 8, output_tokens: 4 }
capacity:
${capacity}
`;
}

/** `inferbench capacity` as the CLI composes it, on a manual clock against 4 slots x 100 ms. */
async function search(text: string, previous: ReadonlyMap<string, number> = new Map()): Promise<Search> {
  const clock = new ManualClock(START_MS);
  const server = scriptedSlots(clock, { slots: 4, serviceMs: 100 });
  const target = scriptedTarget(server.script);
  const profile = resolveProfileText(text, 'virtual-capacity.yaml');
  const objectives = capacityObjectives(profile.capacity.slo, 'capacity.slo');
  const work = runCapacity(
    {
      run: {
        target: { baseUrl: 'http://scripted.invalid', apiKey: null },
        env: { clock, cpuProbe: null, version: 'test', deps: target.deps, tokenizer: TOKENIZER },
      },
      interrupt: new AbortController().signal,
      profile,
      spec: profile.capacity,
      objectives,
    },
    {},
    previous,
  );
  const groups = await runInVirtualTime(clock, work, { untilMs: START_MS + 3_600_000 });
  return {
    profile,
    groups,
    summary: capacitySummary(groups, objectives, profile.capacity),
    server,
    sent: target.sends.length,
  };
}

function only(summary: CapacitySummary): CapacityGroupSummary {
  const group = summary.groups[0];
  if (group === undefined || summary.groups.length !== 1) throw new Error(`${summary.groups.length} groups`);
  return group;
}

const steps = (group: CapacityGroupSummary): string =>
  group.steps.map((s) => `${s.load} ${s.outcome}: ${s.reason}`).join('\n');

/** The search's own SLO, or another, answered from its stored steps as `capacity --reevaluate` does. */
function reevaluate(found: Search, slo?: Readonly<Record<string, string>>): CapacityGroupSummary {
  const spec = found.profile.capacity;
  const objectives = capacityObjectives(slo ?? spec.slo, slo === undefined ? 'capacity.slo' : '--slo');
  // Through JSON, as capacity-steps.json is written and read.
  const file = JSON.parse(
    JSON.stringify(capacityStepsFile('virtual', found.groups, found.summary)),
  ) as CapacityStepsFile;
  const again = reevaluateCapacity(file, objectives, spec);
  return only(capacitySummary(again, objectives, spec));
}

/** 10 req/s constant arrivals, searched from 10 under a p90 TTFT of 75 ms (50 ms while nothing waits). */
const RATE_PROFILE = profileText(
  '{ mode: rate, rate: 10, arrival: constant }',
  '  slo: { ttft_ms.p90: 75ms, error_rate: 10% }\n  start: 10\n  resolution: 5%\n  step_duration: 15s\n  step_warmup: 2s',
);

describe.concurrent('the capacity search in virtual time', () => {
  it('finds the arrival rate a 40 req/s server takes within 10%, probing 10, 20, 40 then bisecting; --reevaluate gives the same', async () => {
    const rate = await search(RATE_PROFILE);
    const group = only(rate.summary);
    const truth = rate.server.capacityPerS;
    expect(truth).toBe(40);
    expect(group.unit).toBe('req/s');
    expect(group.capacity, steps(group)).not.toBeNull();
    expect(group.capacity!).toBeGreaterThan(truth * 0.9);
    expect(group.capacity!).toBeLessThan(truth * 1.1);
    expect(group.last_pass!).toBeLessThan(group.first_fail!);
    // Exact: at 40 req/s (25 ms apart) nothing waits, above it the queue grows.
    expect(group.last_pass).toBe(40);
    expect(group.first_fail!).toBeGreaterThan(40);
    expect(group.first_fail!).toBeLessThan(truth * 1.1);
    expect(group.binding).toBe('ttft_ms.p90');
    // Probing doubles from 10: 10, 20, 40, 80, then bisects between 40 and 80; no step spoiled, none run again.
    const loads = group.steps.map((step) => step.load);
    expect(loads.slice(0, 4)).toEqual([10, 20, 40, 80]);
    for (const load of loads.slice(4)) expect(load > 40 && load < 80).toBe(true);
    expect(new Set(loads).size).toBe(loads.length);
    for (const step of group.steps) expect(step.reason.length).toBeGreaterThan(10);
    for (const step of group.steps) expect(step.outcome).toBe(step.load <= 40 ? 'pass' : 'fail');
    expect(formatCapacityTable(rate.summary, { steps: true })).toContain('s/m/-');
    // step_warmup 2s: every step leaves its first block and 2 more untested, and says so.
    expect(rate.summary.settings.step_warmup_ms).toBe(2000);
    expect(group.step_warmup_ms).toBe(2000);
    const stored = capacityStepsFile('virtual', rate.groups, rate.summary);
    expect(stored.groups[0]!.step_warmup_ms).toBe(2000);
    expect(stored.groups[0]!.steps).toHaveLength(group.steps.length);
    for (const step of stored.groups[0]!.steps) expect(step.ramp_blocks).toBe(3);
    // A step's duration is virtual time: its ramp (3 s) and at least one tested block.
    for (const step of group.steps) expect(step.duration_ms).toBeGreaterThanOrEqual(4000);

    // --reevaluate, the same SLO from the stored steps: the same decisions and capacity.
    const replayed = reevaluate(rate);
    expect(replayed.steps.map((step) => step.outcome)).toEqual(group.steps.map((step) => step.outcome));
    expect(replayed.capacity).toBe(group.capacity);
    expect(replayed.step_warmup_ms).toBe(2000);
    // A stricter SLO, never a higher capacity: under 45 ms (TTFT is never below 50 ms) every step fails.
    const strict = reevaluate(rate, { 'ttft_ms.p90': '45ms', error_rate: '10%' });
    expect(strict.capacity ?? 0).toBeLessThan(group.capacity!);
    expect(strict.steps.map((step) => step.outcome)).toEqual(group.steps.map(() => 'fail'));
    // Stricter by less (60 ms, above the 50 ms of an empty queue): the same steps pass, never a higher capacity.
    const tighter = reevaluate(rate, { 'ttft_ms.p90': '60ms', error_rate: '10%' });
    expect(tighter.steps.map((step) => step.outcome)).toEqual(group.steps.map((step) => step.outcome));
    expect(tighter.capacity!).toBeLessThanOrEqual(group.capacity! * (1 + 1e-9));
  });

  it('--confirm: starts 5% below a previous capacity and decides one step on each side of it', async () => {
    // `previous` is what `capacity --confirm DIR` reads from DIR/summary.json: here the truth, 40 req/s.
    const confirm = await search(RATE_PROFILE, new Map([['s/m/-', 40]]));
    const confirmed = only(confirm.summary);
    expect(confirmed.calibration).toBeNull();
    expect(confirmed.step_warmup_ms).toBe(2000);
    expect(confirmed.steps[0]!.load).toBeCloseTo(38, 6);
    expect(confirmed.steps[0]!.outcome).toBe('pass');
    // The next step one resolution ratio up ((1 + 5%) / (1 - 5%)): above 40, it fails.
    expect(confirmed.steps[1]!.load).toBeCloseTo(38 * (1.05 / 0.95), 6);
    expect(confirmed.steps[1]!.outcome, steps(confirmed)).toBe('fail');
    // Two decided steps bracket it: the search ends there.
    expect(confirmed.steps).toHaveLength(2);
    expect(confirmed.capacity!).toBeGreaterThan(confirm.server.capacityPerS * 0.9);
    expect(confirmed.capacity!).toBeLessThan(confirm.server.capacityPerS * 1.1);
  });

  it('finds exactly the 4 streams a 4-slot server takes without queueing, and says it is below min_capacity 6', async () => {
    // 4 streams: TTFT 50 ms; 5 streams: a quarter of the requests wait a whole service (TTFT 150 ms).
    const streams = await search(
      profileText(
        '{ mode: concurrency, concurrency: 1 }',
        '  slo: { ttft_ms.p90: 62ms }\n  start: 1\n  min_capacity: 6\n  step_duration: 15s\n  step_warmup: 0s',
      ),
    );
    const group = only(streams.summary);
    expect(group.unit).toBe('streams');
    expect(group.last_pass, steps(group)).toBe(4);
    expect(group.first_fail).toBe(5);
    // Streams come whole: 4, whatever fraction the fit's crossing has.
    expect(group.capacity).toBe(4);
    expect(Number.isInteger(group.interval![0]) && Number.isInteger(group.interval![1])).toBe(true);
    expect(group.below_min).toBe(true);
    for (const step of group.steps) expect(Number.isInteger(step.load)).toBe(true);
    expect(group.step_warmup_ms).toBe(0);
    // Exact: every step at 4 streams or fewer passes (TTFT 50 ms), every one at 5 or more fails.
    for (const step of group.steps) expect(step.outcome, steps(group)).toBe(step.load <= 4 ? 'pass' : 'fail');
    // At 5 streams a quarter of the requests waited a whole service: exactly what its test counted.
    const five = group.steps.find((step) => step.load === 5)!.tests[0]!;
    expect(five.exceeded / five.requests).toBe(0.25);
  });

  it('searches tiers together: flex, queued behind default, binds near 40 req/s', async () => {
    // Half the total each: default is always served first, so a default request waits at most for one slot
    // to free (TTFT under 50 + 100 ms) until its own half reaches 40, while flex's wait, and TTFT, grow
    // without bound once the total passes 40.
    const mix = await search(
      profileText(
        '{ mode: rate, rate: 10, arrival: constant }',
        '  slo: { ttft_ms.p90: 175ms }\n  start: 20\n  resolution: 10%\n  step_duration: 15s\n  step_warmup: 2s\n  mix: { default: { weight: 1 }, flex: { weight: 1 } }',
        '    tiers: [default, flex]\n',
      ),
    );
    const group = only(mix.summary);
    expect(group.group).toBe('s/mix');
    const [standard, flex] = group.members!;
    expect(standard!.group).toBe('s/m/default');
    expect(flex!.group).toBe('s/m/flex');
    expect(flex!.capacity, steps(group)).not.toBeNull();
    expect(flex!.capacity!).toBeGreaterThan(mix.server.capacityPerS * 0.85);
    expect(flex!.capacity!).toBeLessThan(mix.server.capacityPerS * 1.15);
    // flex binds: its crossing is the mix's capacity, below default's (or default never broke at all).
    expect(group.binding).toContain('flex');
    expect(group.capacity).toBeCloseTo(flex!.capacity!, 6);
    if (standard!.capacity !== null) expect(flex!.capacity!).toBeLessThan(standard!.capacity);
    expect(formatCapacityTable(mix.summary, { steps: true })).toContain('s/m/flex (weight 1)');
    // Every step ran both tiers at half the total each; each tier's share is stored for --reevaluate.
    const stored = capacityStepsFile('virtual', mix.groups, mix.summary);
    expect(stored.groups.map((g) => g.group)).toEqual([standard!.group, flex!.group]);
    expect(stored.groups[0]!.steps[0]!.load).toBeCloseTo(10, 6);
    for (const [i, step] of group.steps.entries())
      for (const tier of stored.groups) expect(tier.steps[i]!.load).toBeCloseTo(step.load / 2, 6);
    // Both tiers' parts of every step had the step warmup (2 s: the first block and 2 more untested).
    expect(group.step_warmup_ms).toBe(2000);
    for (const tier of stored.groups) {
      expect(tier.step_warmup_ms).toBe(2000);
      for (const step of tier.steps) expect(step.ramp_blocks).toBe(3);
    }
  });
});
