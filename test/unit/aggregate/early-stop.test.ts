/**
 * Live evaluation on hand-built records: a threshold's live value equals what the final summary would say
 * (every stat and group value), and the early-stop checks honour abort_on_fail's grace period (from each
 * group's measured start), group keys, groups without results, and max_error_rate's minimum and limit.
 */
import { describe, expect, it } from 'vitest';
import { createEarlyStop } from '../../../src/aggregate/early-stop.js';
import { liveThresholdValue } from '../../../src/aggregate/live-thresholds.js';
import { createRunCollector } from '../../../src/aggregate/run-collector.js';
import { thresholdValue } from '../../../src/aggregate/thresholds.js';
import type { RunCollector } from '../../../src/aggregate/types.js';
import { createRequestRecord, type RequestRecord } from '../../../src/client/request-record.js';
import { fillRecordedValues } from '../../../src/measure/request-values.js';
import { tokenCounts } from '../../../src/measure/token-counts.js';
import { createRecordedValues } from '../../../src/metrics/request-values.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { parseThreshold } from '../../../src/profile/parse-threshold.js';
import type { ResolvedProfile, ThresholdSpec } from '../../../src/profile/resolved-profile.js';
import { countTokens } from '../../../src/util/tokenizer.js';

const RUN_START_US = 5_000_000;
let nextId = 0;

function ok(g: number, atMs: number, ttftMs: number): RequestRecord {
  const start = RUN_START_US + atMs * 1000;
  const r = createRequestRecord(nextId++, g, start);
  r.sentUs = start + 100;
  r.headersUs = start + 1_000;
  r.firstChunkUs = start + 1_500;
  r.firstTokenUs = start + ttftMs * 1000;
  r.firstOutputUs = r.firstTokenUs;
  r.tokenChunkTimesUs = [r.firstTokenUs, r.firstTokenUs + 7_000, r.firstTokenUs + 15_000];
  r.lastTokenUs = r.firstTokenUs + 15_000;
  r.endUs = r.lastTokenUs + 500;
  r.status = 200;
  r.outputText = ' the the the';
  r.usage = { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 };
  r.expectedInputTokens = 20;
  return r;
}

function failed(g: number, atMs: number): RequestRecord {
  const start = RUN_START_US + atMs * 1000;
  const r = createRequestRecord(nextId++, g, start);
  r.sentUs = start + 100;
  r.endUs = start + 3_000;
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

function profileWith(extra: string, scenarioExtra = ''): ResolvedProfile {
  const text = `scenarios:\n  - name: s\n    models: [a, b]\n    duration: 60s\n${scenarioExtra}${extra}`;
  return resolveProfileText(text, 'p.yaml');
}

function collectorFor(profile: ResolvedProfile): RunCollector {
  return createRunCollector({ groups: profile.groups, slo: { 'ttft_ms.p99': 300 }, runStartUs: RUN_START_US });
}

const spec = (expression: string): ThresholdSpec => {
  const parsed = parseThreshold(expression);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.spec;
};

describe('liveThresholdValue', () => {
  it('equals the final summary value for every stat and group value', () => {
    const profile = profileWith('');
    const collector = collectorFor(profile);
    feed(collector, [...Array.from({ length: 40 }, (_, i) => ok(0, i * 50, 50 + i * 13)), failed(0, 900)]);
    const live = collector.live!(0)!;
    const final = collector.finish(RUN_START_US + 10_000_000).groups[0]!;
    const expressions = [
      ...['min', 'p50', 'p90', 'p95', 'p99', 'p999', 'mean', 'max'].map((stat) => `ttft_ms.${stat} < 1`),
      'itl_ms.p99 < 1',
      'output_tokens.mean < 1',
      'decode_tps.p50 < 1',
      'error_rate < 1',
      'requests_per_s < 1',
      'output_tokens_per_s < 1',
      'total_tokens_per_s < 1',
      'goodput_per_s < 1',
    ];
    for (const expression of expressions) {
      const value = liveThresholdValue(spec(expression), live);
      expect(value, expression).not.toBeNull();
      expect(value, expression).toBe(thresholdValue(spec(expression), final));
    }
  });

  it('is null while a group has no result, or no value of the metric', () => {
    const collector = collectorFor(profileWith(''));
    expect(liveThresholdValue(spec('error_rate < 0.1'), collector.live!(0)!)).toBeNull();
    feed(collector, [failed(0, 10)]);
    expect(liveThresholdValue(spec('ttft_ms.p99 < 1'), collector.live!(0)!)).toBeNull();
    expect(liveThresholdValue(spec('error_rate < 0.1'), collector.live!(0)!)).toBe(1);
  });
});

describe('early stop', () => {
  const THRESHOLD =
    'thresholds:\n  - { threshold: "s/a/-: ttft_ms.p99 < 100", abort_on_fail: true, delay_abort_eval: 2s }\n';

  it('is not created when nothing can stop the run', () => {
    expect(createEarlyStop(profileWith('thresholds: ["ttft_ms.p99 < 1"]\n'), RUN_START_US)).toBeNull();
  });

  it('stops on an abort_on_fail threshold only after its grace period from the group measured start', () => {
    const profile = profileWith(THRESHOLD);
    const collector = collectorFor(profile);
    const stop = createEarlyStop(profile, RUN_START_US)!;
    const live = (i: number) => collector.live!(i);
    const measuredUs = RUN_START_US + 5_000_000; // after a 5 s warmup
    feed(collector, [ok(0, 5_100, 400), ok(1, 5_100, 400)]);
    expect(stop.check(live, measuredUs + 3_000_000)).toBeNull(); // not measuring yet: never judged
    stop.measuring(0, measuredUs);
    stop.measuring(1, measuredUs);
    expect(stop.check(live, measuredUs + 1_900_000)).toBeNull(); // inside the grace period
    expect(stop.check(live, measuredUs + 2_100_000)).toEqual({
      reason: 'abort_on_fail',
      at_s: 7.1,
      threshold: 's/a/-: ttft_ms.p99 < 100',
      group: 's/a/-',
      actual: expect.closeTo(400, -0.5), // HDR buckets: 3 significant digits
    });
  });

  it('ignores groups the threshold does not name and passing values', () => {
    const profile = profileWith(THRESHOLD);
    const collector = collectorFor(profile);
    const stop = createEarlyStop(profile, RUN_START_US)!;
    stop.measuring(0, RUN_START_US);
    stop.measuring(1, RUN_START_US);
    feed(collector, [ok(0, 10, 50), ok(1, 10, 900)]);
    expect(stop.check((i) => collector.live!(i), RUN_START_US + 10_000_000)).toBeNull();
  });

  it('stops on max_error_rate once the group has min_requests ended requests above the limit', () => {
    const profile = profileWith('', '    max_error_rate: { rate: 50%, min_requests: 10 }\n');
    const collector = collectorFor(profile);
    const stop = createEarlyStop(profile, RUN_START_US)!;
    stop.measuring(0, RUN_START_US);
    const live = (i: number) => collector.live!(i);
    feed(
      collector,
      Array.from({ length: 9 }, (_, i) => failed(0, i)),
    );
    expect(stop.check(live, RUN_START_US + 1_000_000)).toBeNull(); // 9 < min_requests
    feed(collector, [ok(0, 20, 50), ok(0, 21, 50), failed(0, 22)]);
    expect(stop.check(live, RUN_START_US + 1_500_000)).toEqual({
      reason: 'max_error_rate',
      at_s: 1.5,
      group: 's/a/-',
      max_error_rate: 0.5,
      error_rate: 0.8333,
      requests: 12,
      errors: { http_5xx: 10 },
    });
  });

  it('does not stop at or below the limit', () => {
    const profile = profileWith('', '    max_error_rate: 0.5\n');
    const collector = collectorFor(profile);
    const stop = createEarlyStop(profile, RUN_START_US)!;
    stop.measuring(0, RUN_START_US);
    feed(collector, [
      ...Array.from({ length: 10 }, (_, i) => failed(0, i)),
      ...Array.from({ length: 10 }, (_, i) => ok(0, 20 + i, 50)),
    ]);
    expect(stop.check((i) => collector.live!(i), RUN_START_US + 5_000_000)).toBeNull();
  });
});
