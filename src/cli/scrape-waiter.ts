/**
 * "Has Prometheus read the final values yet?": after the run ends (arm), the first /metrics answer made
 * after that moment and sent in full ends the wait; a time limit or Ctrl-C ends it too. Answers are told
 * apart by counting, not by order: one made before arm() may finish after one made after it (two
 * Prometheus scraping at once), and must not end the wait while the final body is still on its way.
 */
export class ScrapeWaiter {
  #armed = false;
  /** Bodies made so far, and answers sent in full. */
  #made = 0;
  #sent = 0;
  /** The ordinal of the first body made after arm() (0: none yet): once that many answers were sent, a final one was. */
  #firstFinal = 0;
  #done = false;
  #wake: (() => void) | null = null;

  /** The values are final from now on. */
  arm(): void {
    this.#armed = true;
  }

  /** A /metrics body is being made (call before reading the values). */
  made(): void {
    this.#made++;
    if (this.#armed && this.#firstFinal === 0) this.#firstFinal = this.#made;
  }

  /** A /metrics answer was sent in full. */
  scraped(): void {
    this.#sent++;
    // At most firstFinal - 1 answers hold values from before arm(): one more is a final one.
    if (this.#firstFinal === 0 || this.#sent < this.#firstFinal) return;
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
