/**
 * What the known-timing server really did, in ms on its own performance.now() clock: counts, per-answer
 * TTFT and E2E, every gap between token writes and every write's lateness, and with tracing one
 * RequestTrace per streamed answer on the machine's monotonic clock. The server writes them
 * (known-timing-answer.ts); a benchmark reads them to compare the client's numbers with the truth.
 */

/** What the server really did, in ms measured on its own performance.now() clock. */
export interface KnownTimingStats {
  /** Requests received (chat completions). */
  requests: number;
  /** Answers written to the end. */
  completed: number;
  /** Streams in progress now, and the most at once. */
  active: number;
  maxActive: number;
  /** Per completed answer: arrival -> first token write. */
  readonly ttftMs: number[];
  /** Per completed answer: arrival -> final write. */
  readonly e2eMs: number[];
  /** Every gap between consecutive token writes of one answer (pooled). */
  readonly itlMs: number[];
  /** Every token write's lateness against its absolute deadline (>= 0 unless written within the early slack). */
  readonly lateMs: number[];
  /** Per streamed answer, with `traceRequests`: its body and when things happened, on the machine's clock. */
  readonly traces: RequestTrace[];
  /** Clears everything (e.g. after a warmup). */
  reset(): void;
}

/**
 * One streamed answer's times on CLOCK_MONOTONIC in ms (process.hrtime, the same clock in every process of
 * the machine), so a benchmark can line them up with the client's own timestamps of the same request,
 * found by its body.
 */
export interface RequestTrace {
  readonly body: string;
  /** When the server's event loop began handling the read the request came in. */
  readonly arrivedAtMs: number;
  firstTokenWrittenAtMs: number;
  finalWrittenAtMs: number;
}

/** The two clocks an offset is read between (the process's own by default). */
export interface OffsetClocks {
  /** CLOCK_MONOTONIC, ms (process.hrtime). */
  readonly monotonicMs: () => number;
  /** performance.now(), ms. */
  readonly nowMs: () => number;
}

const PROCESS_CLOCKS: OffsetClocks = {
  monotonicMs: () => Number(process.hrtime.bigint()) / 1e6,
  nowMs: () => performance.now(),
};

/** Reads of the offset; the one whose two monotonic stamps are closest is kept. */
const OFFSET_READS = 16;

/**
 * Milliseconds to add to performance.now() for CLOCK_MONOTONIC (process.hrtime) milliseconds. One read
 * of each clock is wrong by however long the thread was preempted between them (12.5 ms once on the
 * loaded 2-core machine, which shifted every stamp of a benchmark round): each performance.now() is
 * bracketed by two monotonic reads and the tightest bracket of 16 is kept, its midpoint against it.
 */
export function monotonicOffsetMs(clocks: OffsetClocks = PROCESS_CLOCKS): number {
  let best = Number.POSITIVE_INFINITY;
  let offset = 0;
  for (let i = 0; i < OFFSET_READS; i++) {
    const before = clocks.monotonicMs();
    const now = clocks.nowMs();
    const after = clocks.monotonicMs();
    if (after - before < best) {
      best = after - before;
      offset = (before + after) / 2 - now;
    }
  }
  return offset;
}

/** Empty stats; `reset()` keeps the streams in progress as the new maximum. */
export function createStats(): KnownTimingStats {
  const stats: KnownTimingStats = {
    requests: 0,
    completed: 0,
    active: 0,
    maxActive: 0,
    ttftMs: [],
    e2eMs: [],
    itlMs: [],
    lateMs: [],
    traces: [],
    reset() {
      stats.requests = 0;
      stats.completed = 0;
      stats.maxActive = stats.active;
      stats.ttftMs.length = 0;
      stats.e2eMs.length = 0;
      stats.itlMs.length = 0;
      stats.lateMs.length = 0;
      stats.traces.length = 0;
    },
  };
  return stats;
}
