/**
 * Turns of the event loop for the CPU work of requests (validation, planning, the first write): one
 * request's per turn, in the order they were read, and none in a turn that accepted a connection
 * (up to MAX_DEFERRED_TURNS in a row), so reading and accepting always come before planning.
 *
 * Why: the server can only start a request's clock (time_info) when it reads the request. Bytes that
 * arrive while the event loop is busy wait unseen in the socket, and if a burst of 300 requests were
 * planned back to back (a millisecond or more each on a loaded machine), the last one read would have
 * waited hundreds of ms that no time_info shows, which a client then reads as its own overhead.
 * Planned one per turn, a request that arrives waits at most one other request's work before it is
 * read and stamped; everything after that is queue time the server reports. Connections are worse:
 * libuv (>= 1.45, Node 20) accepts ONE connection per turn of the loop, so a request on the 300th new
 * connection of a burst waits, unseen in the kernel's accept queue, for 300 turns; a turn that plans a
 * request costs a millisecond where one that only accepts and reads costs a few tens of µs. The engine's
 * timer runs between two turns as well, so a burst delays no token by more than one request's work.
 *
 * The turns go by tier (`priority`, then `default`, then `flex`, in read order within a tier), as the
 * engine's queue does: a request waiting here is already on its queue clock, and when the emulator is
 * short of CPU this is where a backlog builds. A single FIFO here let lower tiers reach the engine's
 * queue first and take freed slots while higher-tier requests read before them waited to be planned.
 */
import type { ServiceTierUsed } from '../../protocol/chat.js';

/** Turns in a row without planning while connections keep being accepted, before one request is planned anyway. */
export const MAX_DEFERRED_TURNS = 64;

/** The tier a raw request body will be queued in, for the order of planning (`auto` counts as `priority`). */
export function planningTier(body: unknown): ServiceTierUsed {
  const asked =
    typeof body === 'object' && body !== null ? (body as { service_tier?: unknown }).service_tier : undefined;
  return asked === 'priority' || asked === 'auto' ? 'priority' : asked === 'flex' ? 'flex' : 'default';
}

export class PlanningTurns {
  /** Waiters by tier: priority, default, flex; each in the order they asked. */
  readonly #waiting: [(() => void)[], (() => void)[], (() => void)[]] = [[], [], []];
  #count = 0;
  #scheduled = false;
  #accepted = false;
  #deferred = 0;

  /**
   * Resolves in a later turn of the event loop than now (after the socket reads pending now) and after
   * every earlier caller's turn of the same or a higher tier; whatever the caller then does
   * synchronously is that turn's work.
   */
  next(tier: ServiceTierUsed = 'default'): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting[tier === 'priority' ? 0 : tier === 'flex' ? 2 : 1].push(resolve);
      this.#count++;
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#turn);
      }
    });
  }

  /** The server accepted a connection: more may be waiting in the accept queue, so this turn plans nothing. */
  noteConnection(): void {
    this.#accepted = true;
  }

  /** An immediate queued from an immediate runs in the next turn, after that turn's accept and reads. */
  readonly #turn = (): void => {
    if (this.#accepted && this.#deferred < MAX_DEFERRED_TURNS) {
      this.#accepted = false;
      this.#deferred++;
      setImmediate(this.#turn);
      return;
    }
    this.#accepted = false;
    this.#deferred = 0;
    const lane = this.#waiting.find((waiters) => waiters.length > 0);
    const resolve = lane?.shift();
    if (resolve !== undefined) this.#count--;
    if (this.#count > 0) setImmediate(this.#turn);
    else this.#scheduled = false;
    resolve?.();
  };
}
