/**
 * stop_when_decided's decision on hand-built records fed to a real collector: which thresholds a sequential
 * test can decide (and why not the others), a clean stream passes after the fewest requests Wald's bound
 * allows, a bad one fails within a few blocks, failed requests count as exceeding a latency threshold, the
 * run stops only when every threshold on every group is decided (each group from its measured start),
 * and the early-stop checks carry it (abort_on_fail still comes first).
 */
import { describe, expect, it } from 'vitest';
import {
  createDecidedStop,
  describeDecidability,
  undecidableReasons,
  unsteadyLoads,
} from '../../../src/aggregate/decided-stop.js';
import { createEarlyStop } from '../../../src/aggregate/early-stop.js';
import { createRunCollector } from '../../../src/aggregate/run-collector.js';
import type { RunCollector } from '../../../src/aggregate/types.js';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import { fillRecordedValues } from '../../../src/measure/request-values.js';
import { tokenCounts } from '../../../src/measure/token-counts.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import type { RunStopped } from '../../../src/metrics/run-summary.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import type { ResolvedProfile } from '../../../src/profile/resolved-profile.js';
import { countTokens } from '../../../src/util/tokenizer.js';

const RUN_START_US = 5_000_000;
let nextId = 0;

function ok(g: number, ttftMs: number): RequestRecord {
  const start = RUN_START_US;
  const r = createRequestRecord(nextId++, g, start);
  r.sentUs = start + 100;
  r.headersUs = start + 1_000;
  r.firstChunkUs = start + 1_500;
  r.firstTokenUs = start + ttftMs * 1000;
  r.firstOutputUs = r.firstTokenUs;
  r.tokenChunkTimesUs = [r.firstTokenUs, r.firstTokenUs + 7_000];
  r.lastTokenUs = r.firstTokenUs + 7_000;
  r.endUs = r.lastTokenUs + 500;
  r.status = 200;
  r.outputText = ' the the';
  r.usage = { prompt_tokens: 20, completion_tokens: 2, total_tokens: 22 };
  r.expectedInputTokens = 20;
  return r;
}

function failed(g: number): RequestRecord {
  const r = createRequestRecord(nextId++, g, RUN_START_US);
  r.sentUs = RUN_START_US + 100;
  r.endUs = RUN_START_US + 3_000;
  r.status = 500;
  r.errorClass = 'http_5xx';
  r.errorMessage = 'HTTP 500: boom';
  return r;
}

function feed(collector: RunCollector, records: RequestRecord[]): void {
  for (const r of records) {
    collector.started(r.groupIndex, r.sentUs);
    const tokens = tokenCounts(r, { output: countTokens(r.outputText), reasoning: countTokens(r.reasoningText) });
    collector.completed(r, fillRecordedValues(r, tokens, createRecordedValues()));
  }
}

function profileWith(thresholds: string, models = '[a]', extra = 'stop_when_decided: true\n'): ResolvedProfile {
  const text = `scenarios:\n  - name: s\n    models: ${models}\n    duration: 60s\n${extra}thresholds: ${thresholds}\n`;
  return resolveProfileText(text, 'p.yaml');
}

function collectorFor(profile: ResolvedProfile): RunCollector {
  return createRunCollector({ groups: profile.groups, slo: {}, runStartUs: RUN_START_US });
}

/** n requests of group g, `exceeding` of them at 1000 ms, the others at 100 ms. */
function block(g: number, n: number, exceeding: number): RequestRecord[] {
  return Array.from({ length: n }, (_, i) => ok(g, i < exceeding ? 1000 : 100));
}

const secondUs = (s: number): number => RUN_START_US + s * 1_000_000;

describe('which thresholds a sequential test can decide', () => {
  it('latency percentiles and error_rate under a limit; not a mean, max, throughput, ">" or an unknown group', () => {
    const profile = profileWith(
      '["ttft_ms.p99 < 800", "e2e_ms.p90 <= 2000", "itl_ms.p999 < 50", "error_rate < 0.01", "ttft_ms.mean < 500", "ttft_ms.max < 900", "requests_per_s > 5", "ttft_ms.p99 > 10", "output_tokens.p99 < 100", "error_rate < 0.9", "s/z/-: error_rate < 0.1"]',
    );
    const reasons = Object.fromEntries(undecidableReasons(profile).map((r) => [r.expression, r.reason]));
    expect(reasons).toEqual({
      'ttft_ms.p99 < 800': null,
      'e2e_ms.p90 <= 2000': null,
      'itl_ms.p999 < 50': null,
      'error_rate < 0.01': null,
      'ttft_ms.mean < 500': 'mean is no percentile (a sequential test needs p50 to p99.9)',
      'ttft_ms.max < 900': 'max is no percentile (a sequential test needs p50 to p99.9)',
      'requests_per_s > 5': '">" is a lower bound: no exceedance fraction to test',
      'ttft_ms.p99 > 10': '">" is a lower bound: no exceedance fraction to test',
      'output_tokens.p99 < 100': 'output_tokens is not a latency',
      'error_rate < 0.9': 'an allowed fraction of 0.9 cannot be tested with indifference 0.5',
      's/z/-: error_rate < 0.1': 'no group s/z/-',
    });
    // One undecidable threshold: no decided stop at all, and validate / run say so.
    expect(createDecidedStop(profile, RUN_START_US)).toBeNull();
    expect(describeDecidability(profile)[0]).toContain('the run goes to its end');
    expect(describeDecidability(profile)).toContain(
      '  ttft_ms.mean < 500: cannot stop early (mean is no percentile (a sequential test needs p50 to p99.9))',
    );
  });

  it('a scenario whose load changes (stages, a sweep) keeps the run going: a ramp is not judged before its peak', () => {
    const text = (load: string): ResolvedProfile =>
      resolveProfileText(
        `stop_when_decided: true\nthresholds: ["ttft_ms.p99 < 800"]\nscenarios:\n  - name: steady\n    models: [a]\n    duration: 10s\n  - name: moving\n    models: [a]\n    load: ${load}\n`,
        'p.yaml',
      );
    const ramp = text('{ mode: rate, stages: [{ duration: 10s, rate: 5 }, { duration: 10s, rate: 50 }] }');
    expect(unsteadyLoads(ramp)).toEqual([
      { scenario: 'moving', reason: 'load.stages: its load changes during the run' },
    ]);
    expect(createDecidedStop(ramp, RUN_START_US)).toBeNull();
    expect(describeDecidability(ramp)).toContain(
      '  scenario moving: cannot stop early (load.stages: its load changes during the run)',
    );
    const sweep = text('{ mode: sweep, steps: 2 }\n    duration: 5s');
    expect(unsteadyLoads(sweep).map((u) => u.reason)).toContain('a sweep: its load changes from phase to phase');
    expect(createDecidedStop(text('{ mode: rate, rate: 5 }\n    duration: 5s'), RUN_START_US)).not.toBeNull();
  });

  it('is off unless asked, and off without thresholds', () => {
    expect(createDecidedStop(profileWith('["ttft_ms.p99 < 800"]', '[a]', ''), RUN_START_US)).toBeNull();
    expect(createDecidedStop(profileWith('[]'), RUN_START_US)).toBeNull();
    expect(createEarlyStop(profileWith('["ttft_ms.p99 < 800"]', '[a]', ''), RUN_START_US)).toBeNull();
    expect(createEarlyStop(profileWith('["ttft_ms.p99 < 800"]'), RUN_START_US)).not.toBeNull();
  });

  it("uses the profile's capacity alpha, beta and indifference", () => {
    const profile = profileWith(
      '["ttft_ms.p99 < 800"]',
      '[a]',
      'stop_when_decided: true\ncapacity: { alpha: 0.01, beta: 0.1 }\n',
    );
    expect(describeDecidability(profile)[0]).toBe(
      'stop_when_decided: every threshold can stop the run early (sequential tests, alpha 0.01, beta 0.1, indifference 0.5):',
    );
  });
});

describe('the decided stop', () => {
  it('passes a clean p99 after the 292 requests Wald needs, not before', () => {
    const profile = profileWith('["ttft_ms.p99 < 800"]');
    const collector = collectorFor(profile);
    const stop = createDecidedStop(profile, RUN_START_US)!;
    stop.measuring(0);
    const live = (i: number) => collector.live!(i);
    feed(collector, block(0, 200, 0));
    expect(stop.check(live, secondUs(1))).toBeNull();
    feed(collector, block(0, 91, 0));
    // 291 clean requests: LLR 291 x ln(0.985/0.995) = -2.935, not yet <= ln(0.05/0.95) = -2.944.
    expect(stop.check(live, secondUs(2))).toBeNull();
    feed(collector, block(0, 1, 0));
    const stopped = stop.check(live, secondUs(3));
    expect(stopped).toEqual({
      reason: 'decided',
      at_s: 3,
      alpha: 0.05,
      beta: 0.05,
      indifference: 0.5,
      thresholds: [
        {
          threshold: 'ttft_ms.p99 < 800',
          group: 's/a/-',
          verdict: 'pass',
          at_s: 3,
          requests: 292,
          exceeded: 0,
          allowed: 0.01,
          design_effect: 1,
        },
      ],
    } satisfies RunStopped);
  });

  it('fails a p99 whose requests exceed 800 ms five times too often; failed requests count as exceeding', () => {
    const profile = profileWith('["ttft_ms.p99 < 800"]');
    const collector = collectorFor(profile);
    const stop = createDecidedStop(profile, RUN_START_US)!;
    stop.measuring(0);
    // 3 exceedances in 34 requests: LLR 3 ln 3 + 31 ln(0.985/0.995) = 2.98 >= ln(0.95/0.05) = 2.94.
    feed(collector, [...block(0, 32, 1), failed(0), failed(0)]);
    const stopped = stop.check((i) => collector.live!(i), secondUs(1));
    expect(stopped?.reason).toBe('decided');
    if (stopped?.reason !== 'decided') return;
    expect(stopped.thresholds[0]).toMatchObject({ verdict: 'fail', requests: 34, exceeded: 3 });
  });

  it('an error_rate counts failures only: slow answers do not move it', () => {
    const profile = profileWith('["error_rate < 0.01"]');
    const collector = collectorFor(profile);
    const stop = createDecidedStop(profile, RUN_START_US)!;
    stop.measuring(0);
    feed(collector, block(0, 300, 300));
    const stopped = stop.check((i) => collector.live!(i), secondUs(1));
    expect(stopped?.reason === 'decided' && stopped.thresholds[0]).toMatchObject({ verdict: 'pass', exceeded: 0 });
  });

  it('waits for every threshold on every group, each group read from its measured start', () => {
    const profile = profileWith('["ttft_ms.p99 < 800", "s/b/-: error_rate < 0.05"]', '[a, b]');
    const collector = collectorFor(profile);
    const stop = createDecidedStop(profile, RUN_START_US)!;
    const live = (i: number) => collector.live!(i);
    stop.measuring(0);
    // a is decided; b has not started (a later scenario, say): the run goes on.
    feed(collector, block(0, 400, 0));
    expect(stop.check(live, secondUs(1))).toBeNull();
    stop.measuring(1);
    feed(collector, block(1, 20, 0));
    expect(stop.check(live, secondUs(2))).toBeNull();
    feed(collector, block(1, 400, 0));
    const stopped = stop.check(live, secondUs(3));
    expect(stopped?.reason).toBe('decided');
    if (stopped?.reason !== 'decided') return;
    expect(stopped.thresholds.map((t) => [t.threshold, t.group, t.verdict, t.at_s, t.requests])).toEqual([
      ['ttft_ms.p99 < 800', 's/a/-', 'pass', 1, 400],
      ['ttft_ms.p99 < 800', 's/b/-', 'pass', 3, 420],
      ['s/b/-: error_rate < 0.05', 's/b/-', 'pass', 3, 420],
    ]);
  });

  it('through the early-stop checks: an abort_on_fail failure is reported before a decision', () => {
    const profile = profileWith('[{ threshold: "ttft_ms.p99 < 800", abort_on_fail: true }, "error_rate < 0.01"]');
    const collector = collectorFor(profile);
    const early = createEarlyStop(profile, RUN_START_US)!;
    early.measuring(0, RUN_START_US);
    feed(collector, block(0, 100, 50));
    expect(early.check((i) => collector.live!(i), secondUs(1))?.reason).toBe('abort_on_fail');
  });
});
