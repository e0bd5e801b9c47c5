/**
 * Runs one conversation (a `session:` of user turns, and the `tool_loop:` rounds inside them) as ONE
 * scheduled unit: the schedule's launch starts it, and it settles when the conversation is over, so a
 * closed-loop user runs one session after another, an open-loop arrival starts a session, max_concurrency
 * and `requests` count sessions, and a shard or worker sends whole sessions.
 *
 * Request 1 starts as the load mode says (the arrival in open loop, the send in closed loop); every later
 * request starts when it is sent, after the think time (a user sends the next turn when they are ready:
 * a closed loop of its own), so it has no schedule to be late against and no schedule lag. Each request is its own RequestRecord, labelled by the workload. The answer
 * is read from the record before the record is handed on (the finisher drops its texts), as plain data.
 *
 * A conversation ends early when a request fails (the failure is counted as that request's; the later
 * turns are never sent), when the phase stops sending turns (Ctrl-C, an early stop: the request in flight
 * finishes, a think time is cut short) or when the phase's duration is over before its next turn.
 */
import type { RequestRecord } from '../client/request-record.js';
import type { Clock } from '../util/clock.js';
import type { Conversation, PreviousAnswer } from '../workload/conversation.js';
import type { WorkloadRequest } from './runner-deps.js';
import { thinkWait } from './think-wait.js';

export interface ConversationSender {
  /**
   * Sends one request and resolves with its record once it has ended (not yet handed on). `startsAtSend`:
   * its latencies start at the socket write instead of `intendedStartMs`. `intendedStartMs` null: a later
   * turn or tool round, launched now with no schedule to be late against (left out of schedule lag).
   */
  send(plan: WorkloadRequest, intendedStartMs: number | null, startsAtSend: boolean): Promise<RequestRecord>;
  /** Hands an ended record on to be counted and written (after its answer was read). */
  finish(record: RequestRecord): void;
  readonly clock: Clock;
  /** Aborted when the phase stops sending turns (Ctrl-C, early stop). */
  readonly stop: AbortSignal;
  /** End of the phase on `clock`: its duration or its stages, whichever ends first (Infinity: neither); no turn is sent after it. */
  readonly endMs: number;
}

/** The answer of an ended request as plain data for the workload; null when the request failed. */
export function answerOf(record: RequestRecord): PreviousAnswer | null {
  if (record.errorClass !== null) return null;
  const usage = record.usage;
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens ?? 0;
  return {
    content: record.content,
    toolCalls: record.toolCalls,
    outputTokens: usage ? Math.max(0, usage.completion_tokens - reasoning) : null,
  };
}

/** Sends conversation's requests one after another; resolves when it is over (never rejects on a failure). */
export async function runConversation(
  conversation: Conversation,
  intendedStartMs: number,
  firstStartsAtSend: boolean,
  sender: ConversationSender,
): Promise<void> {
  let record = await sender.send(conversation.first, intendedStartMs, firstStartsAtSend);
  for (;;) {
    const answer = answerOf(record);
    sender.finish(record);
    if (answer === null || sender.stop.aborted) return;
    const step = conversation.next(answer);
    if (step === null) return;
    if (!(await thinkWait(sender.clock, step.thinkMs, sender.endMs, sender.stop))) return;
    record = await sender.send(step.plan, null, true);
  }
}

/**
 * After the schedule's last launch: resolves once every launched conversation is over, the phase's end
 * (`endMs` on `clock`) has come, or `stop` aborts, whichever is first. The graceful stop starts then, so a
 * phase limited by `requests` lets its sessions run to their last turn.
 */
export function conversationsEnded(
  drained: () => Promise<boolean>,
  clock: Clock,
  endMs: number,
  stop: AbortSignal,
): Promise<unknown> {
  const ended = stop.aborted
    ? Promise.resolve()
    : endMs === Number.POSITIVE_INFINITY
      ? new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }))
      : thinkWait(clock, Math.max(0, endMs - clock.nowMs()), Number.POSITIVE_INFINITY, stop);
  return Promise.race([drained(), ended]);
}
