import { describe, expect, it } from 'vitest';
import { createMixPicker } from '../../../src/workload/mix-pick.js';
import { shardWorkloadIndex, subShard } from '../../../src/schedule/shard.js';

const SHARES = [0.7, 0.2, 0.1];

function counts(pick: (i: number) => number, indices: readonly number[]): number[] {
  const out = SHARES.map(() => 0);
  for (const i of indices) out[pick(i)]! += 1;
  return out;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

describe('mix class pick', () => {
  it('gives exact, seeded counts over N indices, each class within 1 request of its share', () => {
    const picker = createMixPicker(1, 'mix', SHARES);
    // Pinned: the same profile picks the same classes in every run (a change here changes every mix run).
    expect(counts((i) => picker.pick(i), range(0, 1000))).toEqual([701, 199, 100]);
    expect(counts((i) => picker.pick(i), range(0, 120))).toEqual([85, 22, 13]);
    expect(
      range(0, 20)
        .map((i) => picker.pick(i))
        .join(''),
    ).toBe('00002001000010010200');
  });

  it('interleaves evenly: any 100 consecutive requests hold each share within 2', () => {
    const picker = createMixPicker(7, 'chat', SHARES);
    for (const start of [0, 13, 500, 12_345, 1_000_000]) {
      const got = counts((i) => picker.pick(i), range(start, start + 100));
      for (const [c, n] of got.entries()) expect(Math.abs(n - SHARES[c]! * 100)).toBeLessThanOrEqual(2);
    }
  });

  it('depends on the seed and scenario, not on the order indices are asked in', () => {
    const a = createMixPicker(1, 'mix', SHARES);
    const b = createMixPicker(1, 'mix', SHARES);
    const forward = range(0, 200).map((i) => a.pick(i));
    const backward = range(0, 200)
      .reverse()
      .map((i) => b.pick(i))
      .reverse();
    expect(backward).toEqual(forward);
    const other = createMixPicker(2, 'mix', SHARES);
    expect(range(0, 200).map((i) => other.pick(i))).not.toEqual(forward);
    const otherName = createMixPicker(1, 'other', SHARES);
    expect(range(0, 200).map((i) => otherName.pick(i))).not.toEqual(forward);
  });

  it('shards and workers together pick exactly what one run picks', () => {
    const picker = createMixPicker(1, 'mix', SHARES);
    const whole = counts((i) => picker.pick(i), range(0, 600));
    const shards = [1, 2, 3].map((index) => {
      const shard = subShard({ index, count: 3 }, 1, 2);
      const other = subShard({ index, count: 3 }, 2, 2);
      return [
        ...range(0, 100).map((n) => shardWorkloadIndex(n, shard)),
        ...range(0, 100).map((n) => shardWorkloadIndex(n, other)),
      ];
    });
    const indices = shards.flat();
    expect(new Set(indices).size).toBe(600);
    expect(counts((i) => picker.pick(i), indices)).toEqual(whole);
    // And each shard's every-N-th indices keep the shares too.
    const first = counts((i) => picker.pick(i), shards[0]!);
    for (const [c, n] of first.entries()) expect(Math.abs(n - SHARES[c]! * 200)).toBeLessThanOrEqual(3);
  });

  it('one class takes everything; zero-width classes never exist (weights are positive)', () => {
    const one = createMixPicker(1, 'solo', [1]);
    expect(new Set(range(0, 100).map((i) => one.pick(i)))).toEqual(new Set([0]));
    const even = createMixPicker(3, 'even', [0.5, 0.5]);
    expect(
      counts((i) => even.pick(i), range(0, 100))
        .slice(0, 2)
        .every((n) => Math.abs(n - 50) <= 1),
    ).toBe(true);
  });
});
