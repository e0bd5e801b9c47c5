/** Planning turns: one waiter per turn of the event loop, in order, none in a turn that accepted a connection. */
import { describe, expect, it } from 'vitest';
import { MAX_DEFERRED_TURNS, PlanningTurns } from '../../../src/emulator/http/planning-turns.js';

/** Counts turns of the event loop: one per check phase while it runs. */
function turnCounter(): { readonly now: () => number; stop(): void } {
  let turns = 0;
  let running = true;
  const spin = () => {
    turns++;
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
  return { now: () => turns, stop: () => (running = false) };
}

describe('PlanningTurns', () => {
  it('resolves waiters in order, one per turn of the event loop, never in the turn that asked', async () => {
    const turns = new PlanningTurns();
    const counter = turnCounter();
    const askedAt = counter.now();
    const resolvedAt: number[] = [];
    await Promise.all(Array.from({ length: 5 }, (_, i) => turns.next().then(() => (resolvedAt[i] = counter.now()))));
    counter.stop();
    expect(resolvedAt[0]!).toBeGreaterThan(askedAt);
    for (let i = 1; i < 5; i++) expect(resolvedAt[i]!).toBeGreaterThan(resolvedAt[i - 1]!);
  });

  it('runs the rest of the event loop (timers, socket reads) between two turns', async () => {
    const turns = new PlanningTurns();
    const order: string[] = [];
    const first = turns.next().then(() => {
      order.push('first');
      // Due now: it runs before the second waiter's turn, as a socket read would.
      setTimeout(() => order.push('timer'), 0);
      const until = performance.now() + 3;
      while (performance.now() < until);
    });
    const second = turns.next().then(() => order.push('second'));
    await Promise.all([first, second]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(['first', 'timer', 'second']);
  });

  it('plans nothing in a turn that accepted a connection, up to MAX_DEFERRED_TURNS in a row', async () => {
    const turns = new PlanningTurns();
    let accepting = 10;
    // A connection accepted in each of the next 10 turns (as libuv does with a backlog of 10).
    const accept = () => {
      turns.noteConnection();
      if (--accepting > 0) setImmediate(accept);
    };
    accept();
    await turns.next();
    expect(accepting).toBe(0);

    // A flood of connections cannot starve planning: one waiter gets its turn after MAX_DEFERRED_TURNS.
    let flood = true;
    let accepted = 0;
    const acceptForever = () => {
      turns.noteConnection();
      accepted++;
      if (flood) setImmediate(acceptForever);
    };
    acceptForever();
    await turns.next();
    flood = false;
    expect(accepted).toBeGreaterThan(MAX_DEFERRED_TURNS / 2);
    expect(accepted).toBeLessThan(MAX_DEFERRED_TURNS * 3);
  });
});
