/**
 * A continuous token bucket: `capacity` units, refilled at `capacity / windowMs` per ms, so that a full
 * window's worth of traffic is allowed at any moment and the budget comes back smoothly rather than at
 * minute boundaries. A request larger than the whole bucket is let through only when the bucket is full
 * (it then runs into debt), so such a request is slow but never impossible.
 */
export class TokenBucket {
  #level: number;
  #lastMs: number;
  readonly #refillPerMs: number;

  constructor(
    readonly capacity: number,
    windowMs: number,
    nowMs: number,
  ) {
    this.#level = capacity;
    this.#lastMs = nowMs;
    this.#refillPerMs = capacity / windowMs;
  }

  /** Units available at `nowMs` (may be negative after an oversized request). */
  level(nowMs: number): number {
    if (nowMs > this.#lastMs) {
      this.#level = Math.min(this.capacity, this.#level + (nowMs - this.#lastMs) * this.#refillPerMs);
      this.#lastMs = nowMs;
    }
    return this.#level;
  }

  /** How long until `amount` can be taken (0 = now). */
  waitMs(amount: number, nowMs: number): number {
    const needed = Math.min(amount, this.capacity) - this.level(nowMs);
    return needed <= 0 ? 0 : needed / this.#refillPerMs;
  }

  take(amount: number, nowMs: number): void {
    this.#level = this.level(nowMs) - amount;
  }

  /** How long until the bucket is full again (the `x-ratelimit-reset-*` value). */
  msUntilFull(nowMs: number): number {
    const missing = this.capacity - this.level(nowMs);
    return missing <= 0 ? 0 : missing / this.#refillPerMs;
  }
}
