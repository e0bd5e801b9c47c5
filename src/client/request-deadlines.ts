/**
 * The timeouts of one request attempt (connect, headers, first token, idle gap, total) with ONE timer.
 * Deadlines are absolute microsecond times; the timer is armed for the nearest one. Data arriving only
 * moves the idle deadline forward in a field (no timer work per chunk): when the timer fires early
 * because a deadline moved or was cleared, it re-arms for the new nearest one. So a request costs a
 * handful of timer operations, however many chunks it receives, and can never hang: `total` always holds.
 *
 * Phases: `connect` until the request is written to a socket (so waiting for a pooled connection counts),
 * `headers` and `first_token` from the attempt's start (first_token bounds TTFT, and for a non-streaming
 * request the whole answer), `idle` between any two body reads after the headers, `total` from the start.
 */
import type { Clock, TimerHandle } from '../util/clock.js';
import type { TimeoutPhase } from './request-record.js';
import type { ClientOptions } from './types.js';

type TimeoutSpec = ClientOptions['timeouts'];

/** setTimeout's ceiling (about 24.8 days); longer waits are re-armed when they fire. */
const MAX_TIMER_MS = 2_147_483_647;
/** Timers may fire a fraction of a millisecond before a microsecond deadline once rounded. */
const EARLY_FIRE_SLACK_US = 500;

function deadlineAfter(startUs: number, ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? startUs + ms * 1000 : Infinity;
}

/** Tracks one attempt's deadlines; calls `onExpire` at most once, with the phase that ran out first. */
export class RequestDeadlines {
  readonly #timeouts: TimeoutSpec;
  readonly #onExpire: (phase: TimeoutPhase, limitMs: number) => void;
  readonly #clock: Clock;
  #connectUs = Infinity;
  #headersUs = Infinity;
  #firstTokenUs = Infinity;
  #idleUs = Infinity;
  #totalUs = Infinity;
  #idleActive = false;
  #timer: TimerHandle | null = null;
  #armedForUs = Infinity;
  #stopped = false;
  readonly #fire = (): void => this.#onTimer();

  /** `clock`: the client's; its time and its timers. */
  constructor(timeouts: TimeoutSpec, clock: Clock, onExpire: (phase: TimeoutPhase, limitMs: number) => void) {
    this.#timeouts = timeouts;
    this.#clock = clock;
    this.#onExpire = onExpire;
  }

  /** The attempt was handed to the socket layer at `startUs`. */
  start(startUs: number): void {
    const t = this.#timeouts;
    this.#connectUs = deadlineAfter(startUs, t.connectMs);
    this.#headersUs = deadlineAfter(startUs, t.headersMs);
    this.#firstTokenUs = deadlineAfter(startUs, t.firstTokenMs);
    this.#totalUs = deadlineAfter(startUs, t.totalMs);
    this.#arm(this.#clock.nowUs());
  }

  /** A connection was assigned and the request is being written. */
  connected(): void {
    this.#connectUs = Infinity;
  }

  /** Response headers arrived: the idle-gap watch starts. */
  headersReceived(atUs: number): void {
    this.#connectUs = Infinity;
    this.#headersUs = Infinity;
    this.#idleActive = Number.isFinite(this.#timeouts.idleMs) && this.#timeouts.idleMs > 0;
    this.data(atUs);
  }

  /** Body bytes arrived at `atUs`: only a field write, the timer catches up lazily. */
  data(atUs: number): void {
    if (!this.#idleActive) return;
    this.#idleUs = atUs + this.#timeouts.idleMs * 1000;
    if (this.#idleUs < this.#armedForUs) this.#arm(atUs);
  }

  /** The first generated text arrived (or the whole non-streaming body). */
  firstToken(): void {
    this.#firstTokenUs = Infinity;
  }

  /** The attempt ended: no more callbacks. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) this.#clock.clearTimer(this.#timer);
    this.#timer = null;
    this.#armedForUs = Infinity;
  }

  #nearest(): { atUs: number; phase: TimeoutPhase; limitMs: number } {
    let atUs = this.#totalUs;
    let phase: TimeoutPhase = 'total';
    let limitMs = this.#timeouts.totalMs;
    if (this.#connectUs < atUs) {
      atUs = this.#connectUs;
      phase = 'connect';
      limitMs = this.#timeouts.connectMs;
    }
    if (this.#headersUs < atUs) {
      atUs = this.#headersUs;
      phase = 'headers';
      limitMs = this.#timeouts.headersMs;
    }
    if (this.#firstTokenUs < atUs) {
      atUs = this.#firstTokenUs;
      phase = 'first_token';
      limitMs = this.#timeouts.firstTokenMs;
    }
    if (this.#idleActive && this.#idleUs < atUs) {
      atUs = this.#idleUs;
      phase = 'idle';
      limitMs = this.#timeouts.idleMs;
    }
    return { atUs, phase, limitMs };
  }

  #arm(nowUs: number): void {
    if (this.#stopped) return;
    const { atUs } = this.#nearest();
    if (this.#timer !== null) this.#clock.clearTimer(this.#timer);
    this.#timer = null;
    this.#armedForUs = atUs;
    if (atUs === Infinity) return;
    const delayMs = Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil((atUs - nowUs) / 1000)));
    this.#timer = this.#clock.setTimer(this.#fire, delayMs);
  }

  #onTimer(): void {
    this.#timer = null;
    if (this.#stopped) return;
    const nowUs = this.#clock.nowUs();
    const nearest = this.#nearest();
    if (nearest.atUs <= nowUs + EARLY_FIRE_SLACK_US) {
      this.stop();
      this.#onExpire(nearest.phase, nearest.limitMs);
      return;
    }
    this.#arm(nowUs);
  }
}
