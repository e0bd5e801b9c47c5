/** countAbove agrees with counting the raw values, away from the limit's own bucket, for many shapes. */
import { describe, expect, it } from 'vitest';
import { createHistogram } from '../../../src/aggregate/histogram.js';
import { countAbove } from '../../../src/aggregate/histogram-count.js';
import { createRng } from '../../../src/util/rng.js';

describe('countAbove', () => {
  it('counts the values above a limit as the raw values do', () => {
    const rng = createRng(5);
    for (let trial = 0; trial < 40; trial++) {
      const histogram = createHistogram();
      const values: number[] = [];
      const n = 1 + rng.int(0, 2000);
      for (let i = 0; i < n; i++) {
        const value = Math.round(1000 + rng.next() ** 3 * 2_000_000);
        values.push(value);
        histogram.recordValue(value);
      }
      for (const limit of [500, 50_000, 400_000, 1_000_000, 3_000_000]) {
        // Values within 0.2% of the limit share its bucket: leave them out of the comparison.
        const near = values.filter((v) => Math.abs(v - limit) <= limit * 0.002).length;
        const above = values.filter((v) => v > limit).length;
        const counted = countAbove(histogram, limit);
        expect(Math.abs(counted - above), `n ${n} limit ${limit}`).toBeLessThanOrEqual(near);
      }
    }
  });

  it('is 0 for an empty histogram and exact at the ends', () => {
    const histogram = createHistogram();
    expect(countAbove(histogram, 10)).toBe(0);
    for (const v of [100, 200, 300]) histogram.recordValue(v);
    expect(countAbove(histogram, 50)).toBe(3);
    expect(countAbove(histogram, 250)).toBe(1);
    expect(countAbove(histogram, 1000)).toBe(0);
  });
});
