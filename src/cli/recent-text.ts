/**
 * A text a live view serves (/metrics, the dashboard's state), made again only when the last one is
 * older than `reuseMs` or was forgotten: a client that asks in a loop costs the run's main thread a few
 * renders a second (2-3 ms each) instead of one per request.
 */
export class RecentText<T> {
  readonly #make: () => T;
  readonly #reuseMs: number;
  readonly #nowMs: () => number;
  #text: { readonly value: T; readonly atMs: number } | null = null;

  constructor(make: () => T, reuseMs: number, nowMs: () => number = () => performance.now()) {
    this.#make = make;
    this.#reuseMs = reuseMs;
    this.#nowMs = nowMs;
  }

  /** The last text when it is recent, else a new one (a `make` that throws caches nothing). */
  get(): T {
    const now = this.#nowMs();
    const text = this.#text;
    if (text !== null && now - text.atMs < this.#reuseMs) return text.value;
    const value = this.#make();
    this.#text = { value, atMs: now };
    return value;
  }

  /** What the text shows has changed (a tick, the end): the next get() makes it anew. */
  forget(): void {
    this.#text = null;
  }
}
