/**
 * Work that must happen, but not now: items are queued and handled later in short slices with I/O in
 * between, so a burst of work (hundreds of requests ending together in a closed loop) never holds the
 * event loop while other streams' chunks wait to be read and stamped, or while the next requests wait
 * for their socket writes. The first slice runs on a timer, i.e. after the current turn's setImmediate
 * callbacks, which is where undici writes requests to reused keep-alive sockets; further slices follow
 * in setImmediate turns, each after a poll for I/O.
 *
 * flush() handles everything still queued at once (before a summary is made).
 */

/** A slice stops after this long, so it delays a read that arrives meanwhile by no more. */
export const SLICE_MS = 0.1;
/**
 * Past this many queued items the work is falling behind (items come faster than slices between busy
 * turns handle them): slices grow tenfold, so the queue, and memory, cannot grow without bound.
 */
export const BACKLOG_ITEMS = 1024;

export class SlicedQueue<T> {
  readonly #handle: (item: T) => void;
  readonly #sliceMs: number;
  /** A queue with a moving head: no shift() per item. */
  #items: (T | undefined)[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | null = null;
  #immediate: NodeJS.Immediate | null = null;

  constructor(handle: (item: T) => void, sliceMs = SLICE_MS) {
    this.#handle = handle;
    this.#sliceMs = sliceMs;
  }

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
    this.#schedule();
  }

  /** Handles every queued item now. */
  flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    if (this.#immediate !== null) clearImmediate(this.#immediate);
    this.#timer = null;
    this.#immediate = null;
    this.#drain(Number.POSITIVE_INFINITY);
  }

  #schedule(): void {
    if (this.#timer !== null || this.#immediate !== null) return;
    this.#timer = setTimeout(this.#onTimer, 1);
    // flush() is the owner's promise that nothing is lost: the timer must not keep a process alive.
    this.#timer.unref();
  }

  readonly #onTimer = (): void => {
    this.#timer = null;
    this.#slice();
  };

  readonly #slice = (): void => {
    this.#immediate = null;
    this.#drain(performance.now() + (this.size > BACKLOG_ITEMS ? 10 * this.#sliceMs : this.#sliceMs));
    if (this.size > 0 && this.#timer === null) {
      this.#immediate = setImmediate(this.#slice);
      this.#immediate.unref();
    }
  };

  #drain(untilMs: number): void {
    while (this.#head < this.#items.length) {
      const item = this.#items[this.#head] as T;
      this.#items[this.#head] = undefined;
      this.#head++;
      // One item that throws must not strand the rest (the owner's handler records its own failures).
      try {
        this.#handle(item);
      } catch {
        // ignored: see above
      }
      if (performance.now() >= untilMs) break;
    }
    if (this.#head >= this.#items.length) {
      this.#items = [];
      this.#head = 0;
    }
  }
}
