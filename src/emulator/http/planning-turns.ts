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
 */

/** Turns in a row without planning while connections keep being accepted, before one request is planned anyway. */
export const MAX_DEFERRED_TURNS = 64;

export class PlanningTurns {
  #waiting: (() => void)[] = [];
  #scheduled = false;
  #accepted = false;
  #deferred = 0;

  /**
   * Resolves in a later turn of the event loop than now (after the socket reads pending now) and after
   * every earlier caller's turn; whatever the caller then does synchronously is that turn's work.
   */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
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
    const resolve = this.#waiting.shift();
    if (this.#waiting.length > 0) setImmediate(this.#turn);
    else this.#scheduled = false;
    resolve?.();
  };
}
