/**
 * LaunchPacer: a permit never comes in the caller's turn (launches never run inside the reads that freed
 * them), permits come in order, a slice of launch work per turn with I/O polled in between, and a clock
 * that stands still never runs out of slice.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LaunchPacer } from '../../../src/schedule/launch-pacer.js';
import { arrivalUs } from '../../../src/util/arrival-clock.js';
import { ManualClock, systemClock } from '../../../src/util/clock.js';
import { busyWaitMs } from '../../helpers/busy-wait.js';

/** A self-rescheduling setImmediate counting event-loop turns, until stopped. */
function turnCounter(): { turn: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { turn: () => turns, stop: () => (running = false) };
}

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
      busyWaitMs(0.15); // the launch's own work: 0.15 ms each
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

  it('in a turn whose reads took long, lets one launch go and the rest after the next poll', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const serverSide = await accepted;
    try {
      // A slice of a minute, longer than any preemption of a loaded machine (5 ms was not: four launches
      // were split when the 2 oversubscribed cores took the thread away between two): only the read rule
      // splits them.
      const pacer = new LaunchPacer(systemClock, 60_000);
      const turns = turnCounter();
      const launchedInTurn = async (n: number): Promise<number[]> => {
        const at: number[] = [];
        await Promise.all(Array.from({ length: n }, () => pacer.permit().then(() => at.push(turns.turn()))));
        return at;
      };
      // Quiet: four cheap launches share one turn.
      expect(new Set(await launchedInTurn(4)).size).toBe(1);
      // Busy: the launches are asked for while a 2 ms batch of reads is being handled.
      const busy = new Promise<number[]>((resolve) => {
        serverSide.once('data', () => {
          arrivalUs(systemClock);
          const launched = launchedInTurn(4);
          busyWaitMs(2);
          resolve(launched);
        });
      });
      client.write('x');
      const at = await await busy;
      turns.stop();
      expect(at[1]).toBeGreaterThan(at[0] as number);
    } finally {
      client.destroy();
      serverSide.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
