/**
 * The client's connections: one undici Client (one keep-alive connection, no pipelining) per concurrent
 * request up to a limit, handed out by inferbench rather than by an undici Pool.
 *
 * Why not a Pool: it marks a connection busy until undici's own setImmediate after the response ended,
 * so a request launched the moment the previous one ended (the closed loop) waits in the Pool's queue for
 * that event-loop turn, and then for undici's idle-socket check (another setImmediate, GHSA-35p6-xmwp-9g52)
 * before it is written. Two turns: when hundreds of streams end together, each turn holds a whole burst of
 * reads, milliseconds of send lag. Here a connection is free as soon as undici reported its response
 * ended (or failed), so only the idle-socket check's turn remains before the write.
 */
import type { Dispatcher } from 'undici';

/**
 * Gets a free connection (null: the set was destroyed first). Returns false when it does not want it
 * any more (its attempt ended while waiting): the connection then goes to the next in line.
 */
export type ConnectionUser<Connection = Dispatcher> = (connection: Connection | null) => boolean;

/** What the set needs of a connection: a way to close it. */
export interface Closable {
  destroy(): Promise<unknown>;
}

/** At most `maxConnections` connections, created on demand, the most recently freed reused first. */
export class ConnectionSet<Connection extends Closable = Dispatcher> {
  readonly #create: () => Connection;
  readonly #maxConnections: number;
  readonly #all: Connection[] = [];
  readonly #idle: Connection[] = [];
  /** Users waiting for a connection, oldest first (a queue with a moving head: no shift() per item). */
  #waiting: (ConnectionUser<Connection> | undefined)[] = [];
  #waitingHead = 0;
  #destroyed = false;

  constructor(maxConnections: number, create: () => Connection) {
    this.#maxConnections = Math.max(1, Math.ceil(maxConnections));
    this.#create = create;
  }

  /** Calls `use` with a connection now when one is free or may be opened, else when one is released. */
  acquire(use: ConnectionUser<Connection>): void {
    if (this.#destroyed) {
      use(null);
      return;
    }
    const idle = this.#idle.pop();
    if (idle !== undefined) {
      if (!use(idle)) this.#idle.push(idle);
      return;
    }
    if (this.#all.length < this.#maxConnections) {
      const connection = this.#create();
      this.#all.push(connection);
      if (!use(connection)) this.#idle.push(connection);
      return;
    }
    this.#waiting.push(use);
  }

  /** The request on `connection` is over (undici reported its end or error): next in line, or idle. */
  release(connection: Connection): void {
    if (this.#destroyed) return;
    while (this.#waitingHead < this.#waiting.length) {
      const next = this.#waiting[this.#waitingHead] as ConnectionUser<Connection>;
      this.#waiting[this.#waitingHead] = undefined;
      this.#waitingHead++;
      if (next(connection)) return;
    }
    this.#waiting = [];
    this.#waitingHead = 0;
    this.#idle.push(connection);
  }

  /** Closes every connection (requests on them fail) and tells everyone still waiting. */
  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    const waiting = this.#waiting.slice(this.#waitingHead);
    this.#waiting = [];
    this.#waitingHead = 0;
    for (const use of waiting) use?.(null);
    await Promise.all(this.#all.map((connection) => connection.destroy()));
  }
}
