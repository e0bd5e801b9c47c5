/**
 * Requests of one phase still in flight, for the graceful stop: it waits for zero, with a deadline. (The
 * collector counts in-flight requests per group for the time series; this count is the runner's own,
 * of what it launched and still awaits.)
 */
/** Counts requests in flight and lets the graceful stop wait for zero, with a deadline. */
export class InFlight {
  #count = 0;
  #waiters: (() => void)[] = [];

  add(): void {
    this.#count++;
  }

  done(): void {
    this.#count--;
    if (this.#count === 0) for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves true when nothing is in flight, false when timeoutMs passed first (null: no deadline). */
  drained(timeoutMs: number | null): Promise<boolean> {
    if (this.#count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const wake = (): void => {
        if (timer) clearTimeout(timer);
        resolve(true);
      };
      this.#waiters.push(wake);
      if (timeoutMs !== null) {
        timer = setTimeout(() => {
          this.#waiters = this.#waiters.filter((waiter) => waiter !== wake);
          resolve(false);
        }, timeoutMs);
      }
    });
  }
}
