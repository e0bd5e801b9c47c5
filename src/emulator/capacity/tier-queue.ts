/**
 * The waiting line of one model: three FIFO lanes served strictly by tier (`priority`, then `default`,
 * then `flex`). Arrays with a moving head instead of shift(), so dequeuing stays O(1) with thousands
 * waiting; cancelled entries are skipped lazily when they reach the head.
 */
import type { ServiceTierUsed } from '../../protocol/chat.js';

/** What the queue needs to know of a waiting entry. */
export interface Queueable {
  readonly tier: ServiceTierUsed;
  /** Set when the entry must be skipped (its client went away). */
  readonly cancelled: boolean;
  /** When its wait began: the request was read (monotonic ms), so it can be a little before it joined. */
  readonly submitMs: number;
}

class Lane<T extends Queueable> {
  items: T[] = [];
  head = 0;
  /** Entries of this lane waiting and not cancelled. */
  live = 0;

  push(item: T): void {
    this.items.push(item);
  }

  /** Drops cancelled entries at the head; returns the first live one without removing it. */
  peek(): T | undefined {
    while (this.head < this.items.length) {
      const item = this.items[this.head] as T;
      if (!item.cancelled) return item;
      this.head++;
    }
    this.#compact();
    return undefined;
  }

  shift(): T | undefined {
    const item = this.peek();
    if (item === undefined) return undefined;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) this.#compact();
    return item;
  }

  #compact(): void {
    this.items = this.items.slice(this.head);
    this.head = 0;
  }
}

/** Tier-ordered FIFO queue. */
export class TierQueue<T extends Queueable> {
  readonly #priority = new Lane<T>();
  readonly #default = new Lane<T>();
  readonly #flex = new Lane<T>();
  #live = 0;

  /** Entries waiting and not cancelled. */
  get size(): number {
    return this.#live;
  }

  /** Entries of one tier waiting and not cancelled (GET /metrics reports the queue by tier). */
  sizeOf(tier: ServiceTierUsed): number {
    return this.#lane(tier).live;
  }

  push(item: T): void {
    const lane = this.#lane(item.tier);
    lane.push(item);
    lane.live++;
    this.#live++;
  }

  /** The next entry to serve: the oldest of the highest non-empty tier. */
  shift(): T | undefined {
    return this.#take(this.#priority) ?? this.#take(this.#default) ?? this.#take(this.#flex);
  }

  /** Call when a queued entry is cancelled (it stays in its lane until it reaches the head). */
  noteCancelled(item: T): void {
    this.#lane(item.tier).live--;
    this.#live--;
  }

  /** Submit time of the longest-waiting live entry of any tier, or NaN when empty. */
  oldestSubmitMs(): number {
    let oldest = Number.NaN;
    for (const lane of [this.#priority, this.#default, this.#flex]) {
      const head = lane.peek();
      if (head !== undefined && !(head.submitMs >= oldest)) oldest = head.submitMs;
    }
    return oldest;
  }

  #take(lane: Lane<T>): T | undefined {
    const item = lane.shift();
    if (item === undefined) return undefined;
    lane.live--;
    this.#live--;
    return item;
  }

  #lane(tier: ServiceTierUsed): Lane<T> {
    return tier === 'priority' ? this.#priority : tier === 'flex' ? this.#flex : this.#default;
  }
}
