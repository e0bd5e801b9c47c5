/**
 * One chat answer of the known-timing server, on its schedule: the first token `ttftMs` after the request
 * arrived, then one every `itlMs`, then the final chunk; or, not streamed, the whole body when the last
 * token would have been written. It records what it really did in the server's stats.
 *
 * Precision: each stream has ONE timer chain whose deadlines are absolute (arrival + T + k*I), so lateness
 * never accumulates; a late wake-up writes every token already due in one corked write (the same TCP
 * segment, as a real server catching up would). This is the yardstick's hot path: per token it writes a
 * prebuilt Buffer and pushes numbers, nothing more.
 */
import type { Socket } from 'node:net';
import { LAST_CHUNK, sendWhole } from './http1-framing.js';
import type { KnownTimingResponses } from './known-timing-responses.js';
import type { KnownTimingStats, RequestTrace } from './known-timing-stats.js';

/** A wake-up this close to a deadline writes now: waiting another timer tick would be later still. */
const EARLY_SLACK_MS = 0.25;

/** What every answer of one server shares: the schedule, the prebuilt bytes, and where the facts go. */
export interface AnswerPlan {
  readonly ttftMs: number;
  readonly itlMs: number;
  readonly tokens: number;
  readonly responses: KnownTimingResponses;
  readonly stats: KnownTimingStats;
  /** Keep per-token write times in `stats`. */
  readonly recordTimings: boolean;
  /** Keep a RequestTrace per streamed answer in `stats.traces`. */
  readonly traceRequests: boolean;
  /** performance.now() ms + this = CLOCK_MONOTONIC ms, for the traces. */
  readonly toMonotonicMs: number;
}

/** Answers one chat request; `onDone` runs when the answer is written (or the socket went away). */
export function answerChat(
  plan: AnswerPlan,
  socket: Socket,
  arrivedMs: number,
  body: Buffer,
  stream: boolean,
  keepAlive: boolean,
  onDone: () => void,
): void {
  // Locals, so that the per-token closure below reads them as cheaply as it would its own variables.
  const { ttftMs, itlMs, tokens, responses, stats, recordTimings, toMonotonicMs } = plan;
  const { tokenChunk } = responses;
  stats.requests += 1;
  stats.active += 1;
  if (stats.active > stats.maxActive) stats.maxActive = stats.active;
  let timer: NodeJS.Timeout | null = null;
  let ended = false;
  const finish = (completed: boolean): void => {
    if (ended) return;
    ended = true;
    socket.off('close', onClose);
    stats.active -= 1;
    if (completed) stats.completed += 1;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (completed && !keepAlive) socket.end();
    onDone();
  };
  const onClose = (): void => finish(false);
  socket.on('close', onClose);

  if (!stream) {
    timer = answerWholeLater(plan, socket, arrivedMs, finish);
    return;
  }

  writeStreamHead(socket, responses, keepAlive);
  let next = 0;
  let previousWriteMs = Number.NaN;
  const trace = plan.traceRequests ? startTrace(stats, body, arrivedMs + toMonotonicMs) : null;
  const dueMs = (k: number): number => arrivedMs + ttftMs + k * itlMs;
  const tick = (): void => {
    timer = null;
    if (socket.destroyed) return;
    const nowMs = performance.now();
    socket.cork();
    while (next < tokens && dueMs(next) <= nowMs + EARLY_SLACK_MS) {
      socket.write(tokenChunk);
      if (next === 0 && trace !== null) trace.firstTokenWrittenAtMs = nowMs + toMonotonicMs;
      if (recordTimings) {
        if (next === 0) stats.ttftMs.push(nowMs - arrivedMs);
        else stats.itlMs.push(nowMs - previousWriteMs);
        stats.lateMs.push(nowMs - dueMs(next));
      }
      previousWriteMs = nowMs;
      next += 1;
    }
    if (next >= tokens) {
      writeStreamEnd(socket, responses);
      socket.uncork();
      if (recordTimings) stats.e2eMs.push(nowMs - arrivedMs);
      if (trace !== null) trace.finalWrittenAtMs = nowMs + toMonotonicMs;
      finish(true);
      return;
    }
    socket.uncork();
    timer = setTimeout(tick, Math.max(0, dueMs(next) - performance.now()));
  };
  tick();
}

/** Schedules a non-streamed answer for when its last token would have been written; returns its timer. */
function answerWholeLater(
  plan: AnswerPlan,
  socket: Socket,
  arrivedMs: number,
  finish: (completed: boolean) => void,
): NodeJS.Timeout {
  const { stats } = plan;
  const doneAtMs = arrivedMs + plan.ttftMs + (plan.tokens - 1) * plan.itlMs;
  return setTimeout(
    () => {
      if (socket.destroyed) return;
      const nowMs = performance.now();
      sendWhole(socket, '200 OK', plan.responses.completionBody, true);
      if (plan.recordTimings) {
        stats.ttftMs.push(nowMs - arrivedMs);
        stats.e2eMs.push(nowMs - arrivedMs);
        stats.lateMs.push(nowMs - doneAtMs);
      }
      finish(true);
    },
    Math.max(0, doneAtMs - performance.now()),
  );
}

/** The response head and the role chunk, in one segment. */
function writeStreamHead(socket: Socket, responses: KnownTimingResponses, keepAlive: boolean): void {
  socket.cork();
  socket.write(keepAlive ? responses.streamHead.keepAlive : responses.streamHead.close);
  if (responses.roleChunk !== null) socket.write(responses.roleChunk);
  socket.uncork();
}

/** The final chunk, `[DONE]` if asked for, and the end of the chunked body (inside the caller's cork). */
function writeStreamEnd(socket: Socket, responses: KnownTimingResponses): void {
  socket.write(responses.finalChunk);
  if (responses.doneChunk !== null) socket.write(responses.doneChunk);
  socket.write(LAST_CHUNK);
}

/** A trace of one streamed answer, kept in `stats.traces`; its write times are filled in as they happen. */
function startTrace(stats: KnownTimingStats, body: Buffer, arrivedAtMs: number): RequestTrace {
  const trace: RequestTrace = {
    body: body.toString('utf8'),
    arrivedAtMs,
    firstTokenWrittenAtMs: Number.NaN,
    finalWrittenAtMs: Number.NaN,
  };
  stats.traces.push(trace);
  return trace;
}
