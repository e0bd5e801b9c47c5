/**
 * "Has Prometheus read the final values yet?": after the run ends (arm), the first /metrics answer made
 * after that moment and sent in full ends the wait; a time limit or Ctrl-C ends it too.
 */
export class ScrapeWaiter {
  #armed = false;
  /** A body was made after arm(): its values are the final ones. */
  #finalMade = false;
  #done = false;
  #wake: (() => void) | null = null;

  /** The values are final from now on. */
  arm(): void {
    this.#armed = true;
  }

  /** A /metrics body is being made (call before reading the values). */
  made(): void {
    if (this.#armed) this.#finalMade = true;
  }

  /** A /metrics answer was sent in full. */
  scraped(): void {
    if (!this.#finalMade) return;
    this.#done = true;
    this.#wake?.();
  }

  /** Stops any wait (the server is closing). */
  cancel(): void {
    this.#wake?.();
  }

  /** True once a final body was sent; false when `limitMs` passed or `signal` aborted first. */
  wait(limitMs: number, signal: AbortSignal): Promise<boolean> {
    if (this.#done) return Promise.resolve(true);
    return new Promise((resolve) => {
      const end = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', end);
        this.#wake = null;
        resolve(this.#done);
      };
      const timer = setTimeout(end, limitMs);
      signal.addEventListener('abort', end, { once: true });
      this.#wake = end;
    });
  }
}
