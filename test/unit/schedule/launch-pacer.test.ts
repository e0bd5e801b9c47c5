/**
 * LaunchPacer: a permit never comes in the caller's turn (launches never run inside the reads that freed
 * them), permits come in order, a slice of launch work per turn with I/O polled in between, and a clock
 * that stands still never runs out of slice.
 */
import { describe, expect, it } from 'vitest';
import { LaunchPacer } from '../../../src/schedule/launch-pacer.js';
import { ManualClock, systemClock } from '../../../src/util/clock.js';

describe('LaunchPacer', () => {
  it('grants permits later, in order', async () => {
    const pacer = new LaunchPacer(new ManualClock(0));
    const order: number[] = [];
    const done = [0, 1, 2, 3].map((i) => pacer.permit().then(() => order.push(i)));
    await Promise.resolve();
    expect(order).toEqual([]);
    await Promise.all(done);
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('with a clock that stands still, grants every waiting permit in one turn', async () => {
    const pacer = new LaunchPacer(new ManualClock(0));
    let otherTurns = 0;
    const granted: number[] = [];
    const done = Array.from({ length: 50 }, (_, i) => pacer.permit().then(() => granted.push(i)));
    setImmediate(() => setImmediate(() => otherTurns++));
    await Promise.all(done);
    expect(granted).toHaveLength(50);
    expect(otherTurns).toBe(0);
  });

  it('spreads launch work over turns, a slice each, so other callbacks run in between', async () => {
    const pacer = new LaunchPacer(systemClock, 0.2);
    const events: string[] = [];
    const launch = async (i: number): Promise<void> => {
      await pacer.permit();
      events.push(`launch ${i}`);
      const untilMs = performance.now() + 0.15;
      while (performance.now() < untilMs) {
        // the launch's own work: 0.15 ms each
      }
    };
    const done = Array.from({ length: 12 }, (_, i) => launch(i));
    // Another callback queued now runs before the last launches: the pacer yields between slices.
    setImmediate(() => setImmediate(() => events.push('other')));
    await Promise.all(done);
    const launches = events.filter((e) => e.startsWith('launch'));
    expect(launches).toEqual(Array.from({ length: 12 }, (_, i) => `launch ${i}`));
    const other = events.indexOf('other');
    expect(other).toBeGreaterThan(0);
    expect(other).toBeLessThan(events.length - 1);
  });
});
