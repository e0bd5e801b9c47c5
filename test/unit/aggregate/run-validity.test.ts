/**
 * invalidEvidence: a run is not valid evidence of its target's speed when its harness flagged itself (the
 * client was its own bottleneck, with the harness's own reasons) or when arrivals were dropped at the
 * client's cap (per group, with the count); a healthy run with no drops is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { invalidEvidence } from '../../../src/aggregate/run-validity.js';
import type { RunSummary } from '../../../src/metrics/run-summary.js';
import { makeRunDir } from '../../fixtures/make-run.js';

const root = mkdtempSync(join(tmpdir(), 'inferbench-validity-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const healthy = makeRunDir(join(root, 'run'), { models: ['m'], tiers: [null, 'flex'], requestsPerGroup: 20 }).summary;

function withDrops(summary: RunSummary, dropped: readonly number[]): RunSummary {
  return {
    ...summary,
    groups: summary.groups.map((g, i) => ({ ...g, requests: { ...g.requests, dropped: dropped[i] ?? 0 } })),
  };
}

describe('invalidEvidence', () => {
  it('is empty for a healthy run that sent its whole load', () => {
    expect(healthy.harness.client_bottleneck).toBe(false);
    expect(healthy.groups.every((g) => g.requests.dropped === 0)).toBe(true);
    expect(invalidEvidence(healthy)).toEqual([]);
  });

  it("names the client's bottleneck with the harness's own warnings", () => {
    const busy: RunSummary = {
      ...healthy,
      harness: {
        ...healthy.harness,
        client_bottleneck: true,
        warnings: ['event-loop delay p99 was 42 ms (> 10 ms)', 'schedule lag p99 was 31 ms (> 10 ms)'],
      },
    };
    expect(invalidEvidence(busy)).toEqual([
      'the client was its own bottleneck: event-loop delay p99 was 42 ms (> 10 ms); schedule lag p99 was 31 ms (> 10 ms)',
    ]);
  });

  it('names each group that dropped arrivals at its max_concurrency, with the count', () => {
    const [first, second] = healthy.groups.map((g) => g.key);
    expect(invalidEvidence(withDrops(healthy, [1, 17]))).toEqual([
      `${first}: 1 arrival was dropped at max_concurrency (the client's own cap): the stated load was not sent`,
      `${second}: 17 arrivals were dropped at max_concurrency (the client's own cap): the stated load was not sent`,
    ]);
    expect(invalidEvidence(withDrops(healthy, [0, 3]))).toHaveLength(1);
  });
});
