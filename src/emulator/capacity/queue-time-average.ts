/**
 * The rolling average queue time of one model, which `queue_threshold` admission compares against.
 * It is the exponentially weighted time average (time constant `windowMs`) of a signal "how long would a
 * request arriving now wait": 0 while a slot is free, otherwise the larger of the last wait a request
 * actually had and the age of the longest-waiting request. Averaging over time rather than over requests
 * means an idle model drifts back to 0, so a burst does not lock flex traffic out forever. Between two
 * updates the signal is taken to move linearly (trapezoid), which is exact for the commonest case: a
 * stuck queue whose oldest request ages steadily while no event happens.
 */
export class QueueTimeAverage {
  readonly #windowMs: number;
  #valueMs = 0;
  #signalMs = 0;
  #lastMs: number;

  constructor(windowMs: number, nowMs: number) {
    this.#windowMs = windowMs;
    this.#lastMs = nowMs;
  }

  /** Integrates the signal from the last update up to `nowMs`, where it is `signalMs`; returns the average. */
  update(nowMs: number, signalMs: number): number {
    const elapsedMs = nowMs - this.#lastMs;
    if (elapsedMs > 0) {
      const keep = Math.exp(-elapsedMs / this.#windowMs);
      const meanSignalMs = (this.#signalMs + signalMs) / 2;
      this.#valueMs = meanSignalMs + (this.#valueMs - meanSignalMs) * keep;
      this.#lastMs = nowMs;
    }
    this.#signalMs = signalMs;
    return this.#valueMs;
  }
}
