/**
 * The client side of the client benchmark as a child process, pinned by its parent to the client's core:
 * inferbench's real runner and the comparators that run in Node (sink, autocannon) take turns in it,
 * one command at a time. Commands:
 *
 * - runProfile { url, profileText }: a whole run; the first group's throughput, counts and the harness health
 * - holdStart { client, url, streams } / holdState / windowStart / windowEnd { gc } / holdFinish:
 *   streams held open and measured in a window (client-hold.ts); the parent ends the streams at the server
 * - memory { gc }: RSS and heap now
 * - autocannon { url, connections, durationS, body }: requests/s of plain chat
 * - costPerEvent { requests, eventsPerRequest } / bigEvent { bytes, pieceBytes }: client-micro.ts
 */
import autocannon from 'autocannon';
import { inferbenchVersion } from '../cli/version.js';
import { resolveProfileText } from '../profile/load-profile.js';
import { runProfile } from '../runner/run-profile.js';
import { systemClock } from '../util/clock.js';
import { o200kTokenizer } from '../util/tokenizer.js';
import { HoldWindowMeter, holdInferbench, holdSink, type Holder, memoryNow, settledMemory } from './client-hold.js';
import { measureBigEvent, measureCostPerEvent } from './client-micro.js';
import { serveRpc } from './client-rpc.js';

let holder: Holder | null = null;
let meter: HoldWindowMeter | null = null;

async function runWholeProfile(arg: { url: string; profileText: string }) {
  const result = await runProfile({
    profile: resolveProfileText(arg.profileText, 'client-bench.yaml'),
    target: { baseUrl: arg.url, apiKey: null },
    control: { interrupt: new AbortController().signal },
    env: { clock: systemClock, cpuProbe: () => process.cpuUsage(), version: inferbenchVersion() },
  });
  const group = result.groups[0];
  if (group === undefined) throw new Error('the run produced no group');
  return {
    requests: group.requests,
    throughput: group.throughput,
    scheduleLagMs: group.metrics.schedule_lag_ms ?? null,
    harness: result.harness,
  };
}

async function runAutocannon(arg: { url: string; connections: number; durationS: number; body: string }) {
  const result = await autocannon({
    url: `${arg.url}/v1/chat/completions`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: arg.body,
    connections: arg.connections,
    duration: arg.durationS,
  });
  return {
    requests: result.requests.total,
    durationS: result.duration,
    requestsPerS: result.requests.total / result.duration,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

function currentHolder(): Holder {
  if (holder === null) throw new Error('no streams are held');
  return holder;
}

serveRpc(
  {
    warm: () => o200kTokenizer().count('warm up the tokenizer before anything is measured'),
    runProfile: runWholeProfile,
    autocannon: runAutocannon,
    holdStart: (arg: { client: 'inferbench' | 'sink'; url: string; streams: number }) => {
      holder = arg.client === 'inferbench' ? holdInferbench(arg.url, arg.streams) : holdSink(arg.url, arg.streams);
      // A failure surfaces at holdFinish; an unobserved rejection must not end the child first.
      holder.finished.catch(() => {});
    },
    holdState: () => ({ inFlight: currentHolder().inFlight(), events: currentHolder().events() }),
    windowStart: () => {
      meter = new HoldWindowMeter(currentHolder());
    },
    windowEnd: (arg: { gc: boolean }) => {
      if (meter === null) throw new Error('no window was started');
      const ending = meter;
      meter = null;
      return ending.end(arg.gc);
    },
    holdFinish: async () => {
      const result = await currentHolder().finished;
      holder = null;
      return result === null ? null : { harness: result.harness, requests: result.groups[0]?.requests ?? null };
    },
    memory: (arg: { gc: boolean }) => (arg.gc ? settledMemory() : memoryNow(false)),
    costPerEvent: (arg: { requests: number; eventsPerRequest: number }) =>
      measureCostPerEvent(arg.requests, arg.eventsPerRequest),
    bigEvent: (arg: { bytes: number; pieceBytes: number }) => measureBigEvent(arg.bytes, arg.pieceBytes),
  },
  () => process.exit(0),
);
