/**
 * test/helpers/slots-server.ts in virtual time: a Script (scripted-client.ts) of a server of KNOWN
 * capacity, `slots` requests served at once, each for `serviceMs`, the rest held in one queue ordered by
 * the request's `service_tier` (priority, then default or none, then flex; first come first served within a
 * tier), a queued request the client gave up on dropped. TTFT = the wait in the queue + `firstTokenMs`;
 * the last token at the end of the service. So it completes at most slots / serviceMs requests per second,
 * exactly: below that rate (constant arrivals) nothing waits, above it the queue, and every TTFT, grows.
 */
import type { Clock } from '../../src/util/clock.js';
import type { Script, ScriptedAnswer } from './scripted-client.js';

export interface ScriptedSlotsOptions {
  readonly slots: number;
  readonly serviceMs: number;
  /** Start of service -> first token (default half the service, as slots-server.ts). */
  readonly firstTokenMs?: number;
  /** Tokens per answer (default 4). */
  readonly tokens?: number;
}

export interface ScriptedSlots {
  readonly script: Script;
  /** Requests per second it can complete: slots / serviceMs. */
  readonly capacityPerS: number;
  /** Largest number of requests waiting or in service at once. */
  readonly maxInside: () => number;
}

/** 0 priority, 1 default (or none), 2 flex. */
function tierRank(body: Readonly<Record<string, unknown>>): number {
  const tier = body['service_tier'];
  return tier === 'priority' ? 0 : tier === 'flex' ? 2 : 1;
}

interface Waiting {
  readonly rank: number;
  readonly sentMs: number;
  readonly serve: (answer: ScriptedAnswer) => void;
}

/** The server on `clock` (the run's ManualClock: its service timers are the run's). */
export function scriptedSlots(clock: Clock, options: ScriptedSlotsOptions): ScriptedSlots {
  const tokens = options.tokens ?? 4;
  const firstTokenMs = options.firstTokenMs ?? options.serviceMs / 2;
  const itlMs = (options.serviceMs - firstTokenMs) / Math.max(1, tokens - 1);
  const waiting: Waiting[] = [];
  let busy = 0;
  let maxInside = 0;
  const start = (request: Waiting): void => {
    busy++;
    const waitedMs = clock.nowMs() - request.sentMs;
    request.serve({ ttftMs: waitedMs + firstTokenMs, itlMs, outputTokens: tokens });
    // The slot frees at the end of the service, whether or not the client still listens.
    clock.setTimer(() => {
      busy--;
      const next = waiting.shift();
      if (next !== undefined) start(next);
    }, options.serviceMs);
  };
  const script: Script = (_n, send) => ({
    hold(serve) {
      const request: Waiting = { rank: tierRank(send.body), sentMs: send.atMs, serve };
      maxInside = Math.max(maxInside, busy + waiting.length + 1);
      if (busy < options.slots) {
        start(request);
        return () => undefined;
      }
      // Behind every request of its tier or a higher one.
      const at = waiting.findIndex((entry) => entry.rank > request.rank);
      waiting.splice(at < 0 ? waiting.length : at, 0, request);
      return () => {
        const index = waiting.indexOf(request);
        if (index >= 0) waiting.splice(index, 1);
      };
    },
  });
  return { script, capacityPerS: (options.slots * 1000) / options.serviceMs, maxInside: () => maxInside };
}
