/**
 * The share of a shard (schedule/shard.ts): whole numbers split as evenly as possible and adding up to the
 * whole, rates divided, stages shared, zero shares said, arrival seeds apart per shard, workload indices
 * interleaved so all shards together cover one run's, and `--shard` parsing.
 */
import { describe, expect, it } from 'vitest';
import type { LoadSpec, ResolvedScenario } from '../../../src/profile/resolved-profile.js';
import {
  parseShard,
  shardLoad,
  shardScenario,
  shardScheduleSeed,
  shardWorkloadIndex,
  splitEvenly,
  subShard,
} from '../../../src/schedule/shard.js';

const of = (count: number) => Array.from({ length: count }, (_, i) => ({ index: i + 1, count }));

const closed = (concurrency: number): LoadSpec => ({ mode: 'concurrency', concurrency, stages: null });
const open: LoadSpec = {
  mode: 'rate',
  rate: 20,
  arrival: 'poisson',
  burstiness: 1,
  maxConcurrency: 5,
  stages: [
    { durationMs: 1000, target: 10, ramp: 'linear' },
    { durationMs: 2000, target: 30, ramp: 'step' },
  ],
};

function scenario(load: LoadSpec, requests: number | null, warmupRequests = 0): ResolvedScenario {
  return { name: 's', load, requests, warmupRequests, seed: 42 } as unknown as ResolvedScenario;
}

describe('splitEvenly', () => {
  it('gives floor(n/N) plus one to the first n mod N shards, adding up to n', () => {
    expect(of(2).map((shard) => splitEvenly(5, shard))).toEqual([3, 2]);
    expect(of(4).map((shard) => splitEvenly(10, shard))).toEqual([3, 3, 2, 2]);
    expect(of(3).map((shard) => splitEvenly(1, shard))).toEqual([1, 0, 0]);
    for (const total of [0, 1, 7, 64, 1001])
      for (const count of [1, 2, 3, 8])
        expect(of(count).reduce((sum, shard) => sum + splitEvenly(total, shard), 0)).toBe(total);
  });
});

describe('shardLoad', () => {
  it('splits closed-loop concurrency 5 over 2 shards as 3 + 2, and stage targets alike', () => {
    expect(of(2).map((shard) => shardLoad(closed(5), shard))).toEqual([closed(3), closed(2)]);
    const staged: LoadSpec = {
      mode: 'concurrency',
      concurrency: 1,
      stages: [
        { durationMs: 1000, target: 4, ramp: 'linear' },
        { durationMs: 1000, target: 7, ramp: 'step' },
      ],
    };
    const shares = of(2).map((shard) => shardLoad(staged, shard));
    expect(shares.map((load) => load.stages?.map((stage) => stage.target))).toEqual([
      [2, 4],
      [2, 3],
    ]);
    expect(shares.map((load) => (load.mode === 'concurrency' ? load.concurrency : -1))).toEqual([1, 0]);
  });

  it('divides open-loop rates and stage targets by N and splits max_concurrency, at least 1 each', () => {
    const shares = of(4).map((shard) => shardLoad(open, shard));
    for (const load of shares) {
      if (load.mode !== 'rate') throw new Error('mode changed');
      expect(load.rate).toBe(5);
      expect(load.stages?.map((stage) => stage.target)).toEqual([2.5, 7.5]);
      expect(load.arrival).toBe('poisson');
    }
    expect(shares.map((load) => (load.mode === 'rate' ? load.maxConcurrency : -1))).toEqual([2, 1, 1, 1]);
    const many = of(8).map((shard) => shardLoad(open, shard));
    expect(many.map((load) => (load.mode === 'rate' ? load.maxConcurrency : -1))).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });
});

describe('shardScenario', () => {
  it('splits requests and warmup_requests like concurrency, keeping the seed (the prompts)', () => {
    const shares = of(3).map((shard) => shardScenario(scenario(closed(6), 10, 4), shard));
    expect(shares.map((share) => share.scenario.requests)).toEqual([4, 3, 3]);
    expect(shares.map((share) => share.scenario.warmupRequests)).toEqual([2, 1, 1]);
    for (const share of shares) {
      expect(share.scenario.seed).toBe(42);
      expect(share.idleReason).toBeNull();
    }
    expect(shardScenario(scenario(closed(2), null), { index: 2, count: 2 }).scenario.requests).toBeNull();
  });

  it('says when a share is zero: too few users or too few requests for this shard', () => {
    const fewUsers = of(3).map((shard) => shardScenario(scenario(closed(2), null), shard));
    expect(fewUsers.map((share) => share.idleReason === null)).toEqual([true, true, false]);
    expect(fewUsers[2]?.idleReason).toMatch(/concurrency 2 split over 3 shards leaves none to shard 3/);
    const fewRequests = shardScenario(scenario(open, 1), { index: 2, count: 2 });
    expect(fewRequests.idleReason).toMatch(/requests 1 split over 2 shards/);
    // An open loop with time but no request count always sends something: its rate is only smaller.
    expect(shardScenario(scenario(open, null), { index: 4, count: 4 }).idleReason).toBeNull();
  });
});

describe('seeds and workload indices', () => {
  it('seeds each shard apart, and one shard of one like no shard', () => {
    const seeds = of(4).map((shard) => shardScheduleSeed(1234, shard));
    expect(new Set(seeds).size).toBe(4);
    expect(seeds).not.toContain(1234);
    expect(shardScheduleSeed(1234, { index: 1, count: 1 })).toBe(1234);
    expect(shardScheduleSeed(1234, null)).toBe(1234);
    expect(shardScheduleSeed(1234, { index: 2, count: 4 })).toBe(seeds[1]);
  });

  it('interleaves indices so the shards together take each index of one run exactly once', () => {
    expect([0, 1, 2].map((local) => shardWorkloadIndex(local, { index: 2, count: 3 }))).toEqual([1, 4, 7]);
    expect(shardWorkloadIndex(5, null)).toBe(5);
    const total = 13;
    const taken = of(4).flatMap((shard) =>
      Array.from({ length: splitEvenly(total, shard) }, (_, local) => shardWorkloadIndex(local, shard)),
    );
    expect(taken.sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i));
  });
});

describe('parseShard', () => {
  it('reads i/N', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
  });

  it('refuses what is not a shard, with a usage error', () => {
    for (const text of ['0/2', '3/2', '2', 'a/b', '1/0', '-1/2', '1.5/2', ''])
      expect(() => parseShard(text), text).toThrow(expect.objectContaining({ code: 'BAD_USAGE' }));
  });
});

describe('subShard (run --workers within --shard)', () => {
  it('splits a shard over workers so that their counts and workload indices are exactly the shard', () => {
    for (const [n, count, workers] of [
      [100, 3, 2],
      [7, 4, 3],
      [1, 2, 2],
      [1000, 5, 4],
    ] as const) {
      for (let index = 1; index <= count; index++) {
        const outer = { index, count };
        const parts = Array.from({ length: workers }, (_, w) => subShard(outer, w + 1, workers));
        // Counts: the workers' shares add up to the shard's share, for every total.
        for (let total = 0; total <= n; total += Math.max(1, Math.floor(n / 17)))
          expect(parts.reduce((sum, part) => sum + splitEvenly(total, part), 0)).toBe(splitEvenly(total, outer));
        // Workload indices: the workers' requests together are the shard's, each once.
        const shardIndices = Array.from({ length: 12 }, (_, i) => shardWorkloadIndex(i, outer));
        const workerIndices = parts.flatMap((part) =>
          Array.from({ length: 12 }, (_, i) => shardWorkloadIndex(i, part)),
        );
        expect(shardIndices.every((i) => workerIndices.includes(i))).toBe(true);
        expect(new Set(workerIndices).size).toBe(workerIndices.length);
      }
    }
    expect(subShard(null, 2, 3)).toEqual({ index: 2, count: 3 });
  });
});
