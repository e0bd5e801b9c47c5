/**
 * The progress line's window over the last seconds of a run: a small ring of per-second buckets (requests
 * ended, output tokens, a TTFT histogram), each stamped with its second so a bucket left from an older
 * second is emptied when its slot comes round again. The collector fills it once per finished request
 * without allocating; `read` sums it once per progress tick.
 */
import { hdr } from './hdr-library.js';
import type { Histogram } from './histogram.js';

/**
 * Groups (the first ones, by index) whose collector keeps a window of their own besides the run's: the
 * live dashboard charts these; more would be lines nobody can tell apart.
 */
export const GROUP_WINDOWS = 8;

/** Seconds the progress rates and TTFT p50 are taken over. */
export const PROGRESS_WINDOW_S = 5;
/** Buckets in the ring; more than the window's seconds. */
const RING = 8;

/** The window's sums at one progress tick. */
export interface ProgressWindowTotals {
  /** First second of the window (run seconds): the rates divide by the time since its start. */
  readonly fromSecond: number;
  readonly ended: number;
  readonly outputTokens: number;
  /** TTFT p50 of the ok requests that ended in the window; null when none did. */
  readonly ttftP50Ms: number | null;
  /** TTFT p99 of the same requests (the live dashboard draws it); null when none did. */
  readonly ttftP99Ms: number | null;
}

/** A histogram for a progress p50 only: two significant digits keep the ring's histograms small. */
function smallHistogram(): Histogram {
  return hdr().build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 2,
    autoResize: true,
  });
}

/** The last seconds of a run for the progress line, one bucket per second (see the file's comment). */
export class ProgressWindow {
  readonly #second = new Float64Array(RING).fill(-1);
  readonly #ended = new Float64Array(RING);
  readonly #outputTokens = new Float64Array(RING);
  readonly #ttftUs: Histogram[] = Array.from({ length: RING }, smallHistogram);
  /** The sum of the window's TTFT histograms, rebuilt on each read rather than allocated. */
  readonly #windowTtftUs = smallHistogram();

  /** The bucket of run second `second`, emptied first if it still holds an older second. */
  slot(second: number): number {
    const slot = second % RING;
    if (this.#second[slot] !== second) {
      this.#second[slot] = second;
      this.#ended[slot] = 0;
      this.#outputTokens[slot] = 0;
      (this.#ttftUs[slot] as Histogram).reset();
    }
    return slot;
  }

  /** One request ended in bucket `slot`. */
  countEnded(slot: number): void {
    this.#ended[slot] = (this.#ended[slot] as number) + 1;
  }

  /** An ok request of bucket `slot` produced `tokens` output tokens. */
  addOutputTokens(slot: number, tokens: number): void {
    this.#outputTokens[slot] = (this.#outputTokens[slot] as number) + tokens;
  }

  /** An ok request of bucket `slot` had its first token after `ttftUs` microseconds. */
  recordTtftUs(slot: number, ttftUs: number): void {
    (this.#ttftUs[slot] as Histogram).recordValue(Math.round(ttftUs));
  }

  /** Sums the buckets of the last PROGRESS_WINDOW_S seconds up to run second `currentSecond`. */
  read(currentSecond: number): ProgressWindowTotals {
    const fromSecond = Math.max(0, currentSecond - (PROGRESS_WINDOW_S - 1));
    let ended = 0;
    let outputTokens = 0;
    const windowTtftUs = this.#windowTtftUs;
    windowTtftUs.reset();
    for (let s = fromSecond; s <= currentSecond; s++) {
      const slot = s % RING;
      // A bucket stamped with another second holds no request of this window.
      if (this.#second[slot] === s) {
        ended += this.#ended[slot] as number;
        outputTokens += this.#outputTokens[slot] as number;
        windowTtftUs.add(this.#ttftUs[slot] as Histogram);
      }
    }
    const any = windowTtftUs.totalCount > 0;
    const ttftP50Ms = any ? windowTtftUs.getValueAtPercentile(50) / 1000 : null;
    const ttftP99Ms = any ? windowTtftUs.getValueAtPercentile(99) / 1000 : null;
    return { fromSecond, ended, outputTokens, ttftP50Ms, ttftP99Ms };
  }
}
