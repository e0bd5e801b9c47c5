import { describe, expect, it } from 'vitest';
import { LatenessStats } from '../../../../src/emulator/capacity/lateness-stats.js';
import { QueueTimeAverage } from '../../../../src/emulator/capacity/queue-time-average.js';
import { TierQueue, type Queueable } from '../../../../src/emulator/capacity/tier-queue.js';
import type { ServiceTierUsed } from '../../../../src/protocol/chat.js';

class Entry implements Queueable {
  cancelled = false;
  constructor(
    readonly tier: ServiceTierUsed,
    readonly submitMs: number,
    readonly label: string,
  ) {}
}

describe('tier queue', () => {
  it('serves by tier, FIFO within a tier, skipping cancelled entries', () => {
    const queue = new TierQueue<Entry>();
    const entries = [
      new Entry('flex', 1, 'f1'),
      new Entry('default', 2, 'd1'),
      new Entry('priority', 3, 'p1'),
      new Entry('default', 4, 'd2'),
      new Entry('priority', 5, 'p2'),
    ];
    for (const e of entries) queue.push(e);
    entries[3]!.cancelled = true;
    queue.noteCancelled(entries[3]!);
    expect(queue.size).toBe(4);
    expect([queue.sizeOf('priority'), queue.sizeOf('default'), queue.sizeOf('flex')]).toEqual([2, 1, 1]);
    expect(queue.oldestSubmitMs()).toBe(1);
    const order: string[] = [];
    for (let e = queue.shift(); e !== undefined; e = queue.shift()) order.push(e.label);
    expect(order).toEqual(['p1', 'p2', 'd1', 'f1']);
    expect(queue.size).toBe(0);
    expect(queue.oldestSubmitMs()).toBeNaN();
  });

  it('keeps its order across many pushes and shifts (lane compaction)', () => {
    const queue = new TierQueue<Entry>();
    let next = 0;
    const served: number[] = [];
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 100; i++) queue.push(new Entry('default', next, String(next++)));
      for (let i = 0; i < 80; i++) served.push(queue.shift()!.submitMs);
    }
    for (let e = queue.shift(); e !== undefined; e = queue.shift()) served.push(e.submitMs);
    expect(served).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });
});

describe('queue time average', () => {
  it('follows a steady signal, integrates a ramp, and decays to zero when idle', () => {
    const average = new QueueTimeAverage(1000, 0);
    expect(average.update(0, 500)).toBe(0);
    // Signal 500 held for one time constant: 1 - 1/e of the way.
    expect(average.update(1000, 500)).toBeCloseTo(500 * (1 - Math.exp(-1)), 6);
    expect(average.update(20_000, 500)).toBeCloseTo(500, 3);
    expect(average.update(20_000, 0)).toBeCloseTo(500, 3);
    // Signal dropped to 0 (trapezoid over the jump is not applied: the drop happened at 20 s).
    expect(average.update(30_000, 0)).toBeLessThan(1);
  });
});

describe('lateness stats', () => {
  it('counts early and late tokens by absolute deviation, with quantiles that are never optimistic', () => {
    const stats = new LatenessStats();
    for (let i = 0; i < 98; i++) stats.record(0.1);
    stats.record(-0.5);
    stats.record(7.25);
    const summary = stats.summary();
    expect(summary.tokens).toBe(100);
    expect(summary.earlyTokens).toBe(1);
    expect(summary.p50Ms).toBeCloseTo(0.11, 6);
    expect(summary.p99Ms).toBeCloseTo(0.51, 6);
    expect(summary.maxMs).toBe(7.25);
  });
});
