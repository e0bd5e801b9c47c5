/**
 * Work that must happen, but not now: items are queued and handled later in short slices with I/O in
 * between, so a burst of work (hundreds of requests ending together in a closed loop) never holds the
 * event loop while other streams' chunks wait to be read and stamped, or while the next requests wait
 * for their socket writes. The first slice runs on a timer, i.e. after the current turn's setImmediate
 * callbacks, which is where undici writes requests to reused keep-alive sockets; further slices follow
 * in setImmediate turns, each after a poll for I/O.
 *
 * An item may be resumable work (counting a large answer's tokens): its handler gets the slice's
 * deadline and returns false while work remains; the item stays at the head and the next slice resumes
 * it, so no item holds the loop for longer than one step of its own.
 *
 * flush() handles everything still queued at once (before a summary is made); drained() lets the slices
 * run on and resolves when the queue is empty (for work too large to do in one turn).
 */

/** A slice stops after this long, so it delays a read that arrives meanwhile by no more. */
export const SLICE_MS = 0.1;
/**
 * Past this many queued items the work is falling behind (items come faster than slices between busy
 * turns handle them): slices grow tenfold, so the queue, and memory, cannot grow without bound.
 */
export const BACKLOG_ITEMS = 1024;

/**
 * Handles one item. `untilMs` (performance.now()) is when the current slice ends; a handler of resumable
 * work returns false when it stopped there with work left (it is called again with the next slice).
 */
export type SliceHandler<T> = (item: T, untilMs: number) => unknown;

/**
 * When the first slice after a push runs: `timer` (a 1 ms real timer: after the current turn's setImmediate
 * callbacks, where undici writes requests) or `immediate` (the next turn: for work with no sockets to let
 * go first, such as a run in virtual time, where a real timer would make every step wait on real time).
 */
export type FirstSlice = 'timer' | 'immediate';

export class SlicedQueue<T> {
  readonly #handle: SliceHandler<T>;
  readonly #sliceMs: number;
  readonly #firstSlice: FirstSlice;
  /** A queue with a moving head: no shift() per item. */
  #items: (T | undefined)[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | null = null;
  #immediate: NodeJS.Immediate | null = null;
  /** Waiters of drained(); while any wait, the slices keep the process alive. */
  #drainWaiters: (() => void)[] = [];

  constructor(handle: SliceHandler<T>, sliceMs = SLICE_MS, firstSlice: FirstSlice = 'timer') {
    this.#handle = handle;
    this.#sliceMs = sliceMs;
    this.#firstSlice = firstSlice;
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

  /** Resolves once every queued item (and any pushed meanwhile) is handled, in the usual slices. */
  drained(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#drainWaiters.push(resolve);
      this.#timer?.ref();
      this.#immediate?.ref();
    });
  }

  #schedule(): void {
    if (this.#timer !== null || this.#immediate !== null) return;
    // flush() is the owner's promise that nothing is lost: the timer must not keep a process alive.
    if (this.#firstSlice === 'immediate') {
      this.#immediate = setImmediate(this.#slice);
      if (this.#drainWaiters.length === 0) this.#immediate.unref();
      return;
    }
    this.#timer = setTimeout(this.#onTimer, 1);
    if (this.#drainWaiters.length === 0) this.#timer.unref();
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
      if (this.#drainWaiters.length === 0) this.#immediate.unref();
    }
  };

  #drain(untilMs: number): void {
    while (this.#head < this.#items.length) {
      const item = this.#items[this.#head] as T;
      let finished = true;
      // One item that throws must not strand the rest (the owner's handler records its own failures).
      try {
        finished = this.#handle(item, untilMs) !== false;
      } catch {
        // ignored: see above
      }
      if (finished) {
        this.#items[this.#head] = undefined;
        this.#head++;
      }
      if (performance.now() >= untilMs) break;
    }
    if (this.#head >= this.#items.length) {
      this.#items = [];
      this.#head = 0;
      for (const resolve of this.#drainWaiters.splice(0)) resolve();
    }
  }
}
