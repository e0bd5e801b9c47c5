/**
 * How far from their schedule tokens went out (early or late, by absolute value; early ones also counted
 * apart), recorded by the engine at no allocation cost:
 * a fixed array of 10-microsecond buckets up to `rangeMs` (default 100 ms; later tokens land in the last
 * bucket, the exact maximum is kept apart). The emulator benchmark reads it; the server never needs it.
 */
const BUCKET_US = 10;

export interface LatenessSummary {
  readonly tokens: number;
  /** Tokens sent before their due time (the engine's lookahead). */
  readonly earlyTokens: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

export class LatenessStats {
  readonly #counts: Float64Array;
  readonly #buckets: number;
  #total = 0;
  #early = 0;
  #sumMs = 0;
  #maxMs = 0;

  constructor(rangeMs = 100) {
    this.#buckets = Math.max(1, Math.ceil((rangeMs * 1000) / BUCKET_US));
    this.#counts = new Float64Array(this.#buckets);
  }

  /** Records `count` tokens sent `lateMs` after their due time (negative: early). */
  record(lateMs: number, count = 1): void {
    const late = lateMs >= 0 ? lateMs : -lateMs;
    if (lateMs < 0) this.#early += count;
    const bucket = Math.min(this.#buckets - 1, Math.floor((late * 1000) / BUCKET_US));
    this.#counts[bucket] = (this.#counts[bucket] as number) + count;
    this.#total += count;
    this.#sumMs += late * count;
    if (late > this.#maxMs) this.#maxMs = late;
  }

  reset(): void {
    this.#counts.fill(0);
    this.#total = 0;
    this.#early = 0;
    this.#sumMs = 0;
    this.#maxMs = 0;
  }

  summary(): LatenessSummary {
    return {
      tokens: this.#total,
      earlyTokens: this.#early,
      p50Ms: this.#quantile(0.5),
      p99Ms: this.#quantile(0.99),
      p999Ms: this.#quantile(0.999),
      maxMs: this.#maxMs,
      meanMs: this.#total === 0 ? 0 : this.#sumMs / this.#total,
    };
  }

  /** Upper edge of the bucket holding the quantile (never optimistic), capped by the true maximum. */
  #quantile(q: number): number {
    if (this.#total === 0) return 0;
    const rank = q * this.#total;
    let seen = 0;
    for (let i = 0; i < this.#buckets; i++) {
      seen += this.#counts[i] as number;
      if (seen >= rank) return Math.min(((i + 1) * BUCKET_US) / 1000, this.#maxMs);
    }
    return this.#maxMs;
  }
}
