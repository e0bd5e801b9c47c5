/**
 * SlicedQueue: items are handled later (never in the caller's turn), in order, in slices that stop after
 * their time budget with I/O polled in between, one failing item does not strand the rest, and flush()
 * handles everything at once.
 */
import { describe, expect, it, vi } from 'vitest';
import { BACKLOG_ITEMS, SlicedQueue } from '../../../src/util/sliced-queue.js';
import { busyWaitMs } from '../../helpers/busy-wait.js';

describe('SlicedQueue', () => {
  it('handles items later, in order, never in the turn they were pushed', async () => {
    const handled: number[] = [];
    const queue = new SlicedQueue<number>((item) => handled.push(item));
    for (let i = 0; i < 5; i++) queue.push(i);
    await Promise.resolve();
    expect(handled).toEqual([]);
    expect(queue.size).toBe(5);
    // Slices are real time: wait for the queue to drain (a loaded machine may take several), not 20 ms.
    await vi.waitFor(() => expect(queue.size).toBe(0), { timeout: 5000, interval: 5 });
    expect(handled).toEqual([0, 1, 2, 3, 4]);
  });

  it("'immediate': the whole queue is handled in the next turn, not after a timer (what a run in virtual time needs)", async () => {
    const handled: number[] = [];
    const queue = new SlicedQueue<number>((item) => handled.push(item), Number.POSITIVE_INFINITY, 'immediate');
    for (let i = 0; i < 3; i++) queue.push(i);
    await Promise.resolve();
    expect(handled).toEqual([]);
    // One turn (an immediate queued after the pushes runs after the queue's): every item, with no timer.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(handled).toEqual([0, 1, 2]);
    expect(queue.size).toBe(0);
  });

  it('stops a slice after its budget and lets other callbacks run before the next one', async () => {
    const events: string[] = [];
    const queue = new SlicedQueue<number>((item) => {
      events.push(`item ${item}`);
      // Queued during the first slice: it must run before the queue goes on.
      if (item === 0) setImmediate(() => events.push('other'));
      busyWaitMs(1); // each item costs 1 ms, four times the slice
    }, 0.25);
    for (let i = 0; i < 3; i++) queue.push(i);
    await vi.waitFor(() => expect(queue.size).toBe(0), { timeout: 5000, interval: 5 });
    expect(events).toEqual(['item 0', 'other', 'item 1', 'item 2']);
  });

  it('flush() handles everything now; an item that throws does not strand the rest', () => {
    const handled: number[] = [];
    const queue = new SlicedQueue<number>((item) => {
      if (item === 1) throw new Error('bad item');
      handled.push(item);
    });
    for (let i = 0; i < 4; i++) queue.push(i);
    queue.flush();
    expect(handled).toEqual([0, 2, 3]);
    expect(queue.size).toBe(0);
  });

  it('takes longer slices while it is behind, so a backlog cannot grow without bound', async () => {
    const perSlice: number[] = [];
    let inSlice = 0;
    let sliceTurn = -1;
    let turn = 0;
    let counting = true;
    const countTurns = (): void => {
      turn++;
      if (counting) setImmediate(countTurns);
    };
    setImmediate(countTurns);
    const queue = new SlicedQueue<number>(() => {
      if (sliceTurn !== turn) {
        if (sliceTurn !== -1) perSlice.push(inSlice);
        sliceTurn = turn;
        inSlice = 0;
      }
      inSlice++;
      busyWaitMs(0.02); // 20 µs of work per item: 5 items fit a normal 0.1 ms slice
    }, 0.1);
    for (let i = 0; i < BACKLOG_ITEMS + 600; i++) queue.push(i);
    while (queue.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    counting = false;
    // While more than BACKLOG_ITEMS wait, a slice handles about 50 items; once below, about 5.
    expect(Math.max(...perSlice)).toBeGreaterThanOrEqual(30);
    expect(perSlice[perSlice.length - 1]).toBeLessThanOrEqual(8);
  });
});
