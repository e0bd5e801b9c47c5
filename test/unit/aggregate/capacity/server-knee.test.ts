/**
 * The rule that says what the server showed at a capacity search's knee (server-knee.ts): the concepts
 * that moved by at least their threshold, in the rule's order, at most three; "unchanged:" with the first
 * two when none moved; null without a server window on either side; and the two steps it reads.
 */
import { describe, expect, it } from 'vitest';
import { kneeSteps, serverBrief, serverKnee } from '../../../../src/aggregate/capacity/server-knee.js';
import type { ServerConceptSummary, ServerPhaseSummary } from '../../../../src/metrics/server-summary.js';

const at = { sources: ['x'], endpoint: 'http://127.0.0.1/metrics' };
const gauge = (max: number, mean = max): ServerConceptSummary => ({
  kind: 'gauge',
  last: max,
  min: 0,
  max,
  mean,
  ...at,
});
const counter = (per_s: number): ServerConceptSummary => ({ kind: 'counter', delta: per_s * 10, per_s, ...at });
const histogram = (p99: number): ServerConceptSummary => ({
  kind: 'histogram',
  count: 10,
  mean: p99 / 2,
  p50: p99 / 2,
  p90: p99,
  p99,
  ...at,
});

function phase(concepts: Record<string, ServerConceptSummary>): ServerPhaseSummary {
  return {
    from_s: 0,
    to_s: 10,
    scrapes: 10,
    failures: 0,
    output_tokens: 100,
    concepts,
    energy_per_output_token_j: null,
  };
}

describe('serverKnee', () => {
  it('names the queue and the KV cache that moved, in the rule order, with their units', () => {
    const pass = phase({ kv_cache_usage: gauge(0.61), waiting: gauge(0), running: gauge(4) });
    const fail = phase({ kv_cache_usage: gauge(0.99), waiting: gauge(37), running: gauge(4) });
    expect(serverKnee(pass, fail)).toBe('waiting 0 -> 37, KV cache 61% -> 99%');
  });

  it('names at most three: the first in the order waiting, KV cache, preemptions, GPU use, running, queue p99', () => {
    const pass = phase({
      server_queue_time: histogram(5),
      running: gauge(2),
      gpu_util: gauge(1, 0.5),
      preemptions: counter(0),
      kv_cache_usage: gauge(0.2),
      waiting: gauge(0),
    });
    const fail = phase({
      server_queue_time: histogram(900),
      running: gauge(8),
      gpu_util: gauge(1, 0.97),
      preemptions: counter(2.5),
      kv_cache_usage: gauge(0.22),
      waiting: gauge(3),
    });
    // KV cache moved 2 points (under 5): left out; GPU use is its mean.
    expect(serverKnee(pass, fail)).toBe('waiting 0 -> 3, preemptions 0/s -> 2.5/s, GPU use 50% -> 97%');
  });

  it('takes each threshold as it is stated: 1 request, 5 points, and 10 ms and a fifth for the queue time', () => {
    const knee = (a: Record<string, ServerConceptSummary>, b: Record<string, ServerConceptSummary>) =>
      serverKnee(phase(a), phase(b));
    expect(knee({ waiting: gauge(2) }, { waiting: gauge(3) })).toBe('waiting 2 -> 3');
    expect(knee({ waiting: gauge(2) }, { waiting: gauge(2.5) })).toBe('unchanged: waiting 2 -> 2.5');
    expect(knee({ kv_cache_usage: gauge(0.5) }, { kv_cache_usage: gauge(0.55) })).toBe('KV cache 50% -> 55%');
    expect(knee({ kv_cache_usage: gauge(0.5) }, { kv_cache_usage: gauge(0.54) })).toBe(
      'unchanged: KV cache 50% -> 54%',
    );
    expect(knee({ server_queue_time: histogram(100) }, { server_queue_time: histogram(119) })).toBe(
      'unchanged: server queue p99 100 ms -> 119 ms',
    );
    expect(knee({ server_queue_time: histogram(100) }, { server_queue_time: histogram(120) })).toBe(
      'server queue p99 100 ms -> 120 ms',
    );
  });

  it('says "unchanged:" with the first two when nothing moved, and null without a window or a shared concept', () => {
    const still = phase({ waiting: gauge(0), kv_cache_usage: gauge(0.3), running: gauge(4) });
    expect(serverKnee(still, still)).toBe('unchanged: waiting 0 -> 0, KV cache 30% -> 30%');
    expect(serverKnee(null, still)).toBeNull();
    expect(serverKnee(still, null)).toBeNull();
    expect(serverKnee(phase({ waiting: gauge(0) }), phase({ kv_cache_usage: gauge(1) }))).toBeNull();
    // A concept whose statistic is null (nothing in the window) is not compared.
    const empty: ServerConceptSummary = { kind: 'gauge', last: null, min: null, max: null, mean: null, ...at };
    expect(serverKnee(phase({ waiting: empty }), phase({ waiting: gauge(5) }))).toBeNull();
  });

  it("brief: a step's concepts of the rule, the first three it has", () => {
    expect(serverBrief(phase({ running: gauge(4), waiting: gauge(7), kv_cache_usage: gauge(0.995) }))).toBe(
      'waiting 7, KV cache 100%, running 4',
    );
    expect(serverBrief(null)).toBe('');
  });
});

describe('kneeSteps', () => {
  it('takes the latest pass at the highest passing load and the first fail at the lowest failing load', () => {
    const steps = [
      { step: 1, load: 4, outcome: 'pass' },
      { step: 2, load: 8, outcome: 'fail' },
      { step: 3, load: 6, outcome: 'pass' },
      { step: 4, load: 7, outcome: 'fail' },
      { step: 5, load: 6, outcome: 'pass' },
      { step: 6, load: 7, outcome: 'fail' },
    ];
    const knee = kneeSteps(steps, 6, 7);
    expect(knee.lastPass?.step).toBe(5);
    expect(knee.firstFail?.step).toBe(4);
    expect(kneeSteps(steps, null, null)).toEqual({ lastPass: undefined, firstFail: undefined });
  });
});
