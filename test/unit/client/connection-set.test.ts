/**
 * connection-set: at most maxConnections connections, opened on demand; a released connection goes to
 * the oldest waiter still wanting one (waiters whose attempt ended are skipped), else back to idle and
 * reused first; destroy tells every waiter. The connections here are plain stand-ins: only the
 * bookkeeping is under test (the HTTP side runs in inference-client.test.ts against real servers).
 */
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { ConnectionSet } from '../../../src/client/connection-set.js';

function standIns() {
  const made: { id: number; destroyed: boolean }[] = [];
  const create = (): Dispatcher => {
    const connection = {
      id: made.length,
      destroyed: false,
      destroy: async (): Promise<void> => {
        connection.destroyed = true;
      },
    };
    made.push(connection);
    return connection as unknown as Dispatcher;
  };
  return { made, create };
}
const idOf = (connection: Dispatcher | null): number | null =>
  connection === null ? null : (connection as unknown as { id: number }).id;

describe('ConnectionSet', () => {
  it('opens up to the limit, queues beyond it, hands released connections to waiters in order', () => {
    const { made, create } = standIns();
    const set = new ConnectionSet(2, create);
    const got: (number | null)[] = [];
    const take =
      (wanted = true) =>
      (connection: Dispatcher | null) => {
        if (wanted) got.push(idOf(connection));
        return wanted;
      };
    set.acquire(take());
    set.acquire(take());
    set.acquire(take(false)); // ends while waiting: skipped
    set.acquire(take());
    expect(got).toEqual([0, 1]);
    expect(made).toHaveLength(2);
    set.release(made[1] as unknown as Dispatcher);
    expect(got).toEqual([0, 1, 1]);
    set.release(made[0] as unknown as Dispatcher);
    set.acquire(take());
    expect(got).toEqual([0, 1, 1, 0]);
    expect(made).toHaveLength(2);
  });

  it('destroy closes every connection and answers waiters with null', async () => {
    const { made, create } = standIns();
    const set = new ConnectionSet(1, create);
    const got: (number | null)[] = [];
    const take = (connection: Dispatcher | null) => {
      got.push(idOf(connection));
      return true;
    };
    set.acquire(take);
    set.acquire(take);
    await set.destroy();
    set.acquire(take);
    expect(got).toEqual([0, null, null]);
    expect(made.every((connection) => connection.destroyed)).toBe(true);
  });
});
