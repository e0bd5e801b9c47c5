/**
 * A scripted client: the runner's client layer (RunnerDeps.createClient) replaced by one that answers each
 * request after scripted virtual delays, on the run's own ManualClock. It is not an HTTP mock: no socket,
 * no wire format; it fills the RequestRecord as the real client would (sent, headers, first token, token
 * times, end, usage, or an error class), with times read from the injected clock. What the runner does with
 * requests (when it launches them, what it counts, drops, stops) is then tested in virtual time; what the
 * real client measures on a socket is tested against real servers (test/unit/client/). A script may hold a
 * request and answer it later (a server's queue: test/helpers/scripted-slots.ts).
 */
import { setMaxListeners } from 'node:events';
import type { RequestRecord } from '../../src/client/request-record.js';
import { markSent } from '../../src/client/request-record.js';
import type { ClientOptions, InferenceClient } from '../../src/client/types.js';
import type { ErrorClass } from '../../src/protocol/error-classes.js';
import { HARNESS_LIMITS, type HarnessMonitor } from '../../src/runner/harness-monitor.js';
import type { RunnerDeps } from '../../src/runner/runner-deps.js';
import { defaultRunnerDeps } from '../../src/runner/runner-deps.js';
import type { Clock, TimerHandle } from '../../src/util/clock.js';

/** How one request is answered, in virtual ms from its send. */
export interface ScriptedAnswer {
  /** Send -> first generated token (default 50). */
  readonly ttftMs?: number;
  /** Gap between two tokens (default 10). */
  readonly itlMs?: number;
  /** Tokens generated (default 5); the answer text is that many ` a`s. */
  readonly outputTokens?: number;
  /** A failure instead of an answer, at `ttftMs` (its status: 500 for http_5xx, 429 for http_429, else 0). */
  readonly error?: ErrorClass;
}

/** One request as the scripted client saw it. */
export interface ScriptedSend {
  /** Virtual ms (clock.nowMs()) of the send. */
  readonly atMs: number;
  readonly record: RequestRecord;
  readonly body: Readonly<Record<string, unknown>>;
  /** Requests in flight just after this one was sent (itself included). */
  readonly inFlight: number;
}

/**
 * A request the script holds (a server's queue): the script calls `serve` when it starts answering it,
 * with an answer whose times count from the send (its ttftMs includes the wait). `hold` returns what to do
 * when the client gives up first (its graceful stop expired): a server drops a request still queued.
 */
export interface HeldAnswer {
  hold(serve: (answer: ScriptedAnswer) => void): () => void;
}

/** Answers request `n` (0-based, in send order across every client of the run), at once or held. */
export type Script = (n: number, send: ScriptedSend) => ScriptedAnswer | HeldAnswer;

export interface ScriptedTarget {
  /** Every request sent, in send order. */
  readonly sends: ScriptedSend[];
  /** The most requests in flight at once. */
  maxInFlight: number;
  /** The runner's layers with this client in place of the real one. */
  readonly deps: RunnerDeps;
}

const STATUS: Partial<Record<ErrorClass, number>> = { http_5xx: 500, http_429: 429, http_4xx: 400 };

/** A target answered by `script`; every client the runner creates shares its log. */
export function scriptedTarget(script: Script = () => ({}), models: readonly string[] = ['m']): ScriptedTarget {
  const target: ScriptedTarget = {
    sends: [],
    maxInFlight: 0,
    deps: {
      ...defaultRunnerDeps,
      createClient: (options) => scriptedClient(options, target, script, models),
      startHarnessMonitor: virtualHarnessMonitor,
      // No sockets to let go first: ended records are finished in the next turn, so moving the clock waits
      // on no real timer (test/helpers/virtual-time.ts).
      recordFinishing: 'next-turn',
    },
  };
  return target;
}

/**
 * The harness's health in virtual time: the schedule lag as recorded (on the manual clock), and no event
 * loop delay or CPU use of its own. The real event loop's delay, while virtual minutes run in a few real
 * milliseconds, says nothing of the run: read, it would call the harness its own bottleneck at random.
 */
function virtualHarnessMonitor(): HarnessMonitor {
  const lagsMs: number[] = [];
  return {
    recordScheduleLagUs: (lagUs) => lagsMs.push(lagUs / 1000),
    finish() {
      const sorted = [...lagsMs].sort((a, b) => a - b);
      const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      const lag = { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
      const late = lag.p99 > HARNESS_LIMITS.scheduleLagP99Ms;
      return {
        event_loop_delay_ms: { p50: 0, p99: 0, max: 0 },
        cpu_utilization: 0,
        schedule_lag_ms: lag,
        warnings: late ? [`schedule lag p99 was ${lag.p99} ms`] : [],
        client_bottleneck: late,
      };
    },
  };
}

function scriptedClient(
  options: ClientOptions,
  target: ScriptedTarget,
  script: Script,
  models: readonly string[],
): InferenceClient {
  const clock = options.clock;
  if (clock === undefined) throw new Error('the scripted client needs the run clock in its options');
  let inFlight = 0;
  return {
    send(plan, record, signal) {
      inFlight++;
      target.maxInFlight = Math.max(target.maxInFlight, inFlight);
      const sendUs = clock.nowUs();
      markSent(record, sendUs);
      const send: ScriptedSend = { atMs: clock.nowMs(), record, body: plan.body, inFlight };
      const reply = script(target.sends.length, send);
      target.sends.push(send);
      return new Promise<void>((resolve) => {
        const end = (): void => {
          inFlight--;
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        let timer: TimerHandle | null = null;
        const serve = (answer: ScriptedAnswer): void => {
          const ttftMs = answer.ttftMs ?? 50;
          const itlMs = answer.itlMs ?? 10;
          const tokens = answer.outputTokens ?? 5;
          const e2eMs = answer.error === undefined ? ttftMs + itlMs * Math.max(0, tokens - 1) : ttftMs;
          // Times count from the send: a held answer has already waited part of them.
          const leftMs = e2eMs - (clock.nowUs() - sendUs) / 1000;
          timer = clock.setTimer(() => {
            if (answer.error === undefined) answered(record, clock, sendUs, ttftMs, itlMs, tokens);
            else failed(record, clock, answer.error);
            end();
          }, leftMs);
        };
        let release: (() => void) | null = null;
        if ('hold' in reply) release = reply.hold(serve);
        else serve(reply);
        // The graceful stop's expiry: the request ends now as a timeout of phase `total`.
        const onAbort = (): void => {
          if (timer === null) release?.();
          else clock.clearTimer(timer);
          record.errorClass = 'timeout';
          record.timeoutPhase = 'total';
          record.errorMessage = 'aborted';
          record.endUs = clock.nowUs();
          end();
        };
        if (signal?.aborted) onAbort();
        else if (signal !== undefined) {
          // Every request in flight listens to the one stop signal: a queue of them is no listener leak.
          setMaxListeners(0, signal);
          signal.addEventListener('abort', onAbort, { once: true });
        }
      });
    },
    listModels: () => Promise.resolve([...models]),
    close: () => Promise.resolve(),
  };
}

function answered(
  record: RequestRecord,
  clock: Clock,
  sendUs: number,
  ttftMs: number,
  itlMs: number,
  tokens: number,
): void {
  record.status = 200;
  record.headersUs = sendUs + Math.round(ttftMs * 500);
  record.firstChunkUs = record.headersUs;
  for (let i = 0; i < tokens; i++) record.tokenChunkTimesUs.push(sendUs + Math.round((ttftMs + i * itlMs) * 1000));
  record.firstTokenUs = record.tokenChunkTimesUs[0] ?? Number.NaN;
  record.firstOutputUs = record.firstTokenUs;
  record.lastTokenUs = record.tokenChunkTimesUs.at(-1) ?? Number.NaN;
  record.endUs = clock.nowUs();
  record.chunkCount = tokens;
  record.outputText = ' a'.repeat(tokens);
  if (record.keepContent) record.content = record.outputText;
  record.finishReason = 'stop';
  const prompt = Number.isNaN(record.expectedInputTokens) ? 0 : record.expectedInputTokens;
  record.usage = { prompt_tokens: prompt, completion_tokens: tokens, total_tokens: prompt + tokens };
}

function failed(record: RequestRecord, clock: Clock, error: ErrorClass): void {
  record.status = STATUS[error] ?? 0;
  if (record.status !== 0) record.headersUs = clock.nowUs();
  record.errorClass = error;
  record.errorMessage = `scripted ${error}`;
  record.endUs = clock.nowUs();
}
