/**
 * Streams held open by the client under test (in the client child), and the measurement window over them:
 * CPU time, events absorbed and reads between windowStart() and windowEnd(), the event-loop delay in that
 * window, and memory. Two clients hold streams: inferbench (the real runner: runProfile with a profile
 * of `streams` closed-loop streamed requests) and the sink (client-sink.ts).
 *
 * Events are counted from the runner's own records (chunkCount of every record, live ones included), so
 * a window that no request starts or ends in counts exactly what was absorbed in it. Reads are counted by
 * wrapping the client's response handler's onResponseData once per process (a counter increment, in the
 * benchmark only), to say how many events each read actually carried.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { AttemptHandler } from '../client/attempt-handler.js';
import type { RequestRecord } from '../client/request-record.js';
import { inferbenchVersion } from '../cli/version.js';
import { resolveProfileText } from '../profile/load-profile.js';
import { defaultRunnerDeps, type RunnerDeps } from '../runner/runner-deps.js';
import { runProfile, type RunResult } from '../runner/run-profile.js';
import { systemClock } from '../util/clock.js';
import { comparatorBody, holdStreamsProfile } from './client-profiles.js';
import { SinkClient } from './client-sink.js';

/** Streams held by one client. */
export interface Holder {
  inFlight(): number;
  events(): number;
  reads(): number;
  /** Resolves when every stream has ended (the server finished them), with the run's result if any. */
  readonly finished: Promise<RunResult | null>;
}

let inferbenchReads = 0;
let readCounterInstalled = false;

/** Counts inferbench's reads (calls of AttemptHandler.onResponseData), installed once. */
function installReadCounter(): void {
  if (readCounterInstalled) return;
  readCounterInstalled = true;
  const proto = AttemptHandler.prototype;
  const original = proto.onResponseData;
  proto.onResponseData = function countedRead(this: AttemptHandler, controller, chunk) {
    inferbenchReads++;
    original.call(this, controller, chunk);
  };
}

/** The real runner holding `streams` streams from `url`. */
export function holdInferbench(url: string, streams: number): Holder {
  installReadCounter();
  const live = new Set<RequestRecord>();
  let endedEvents = 0;
  let inFlight = 0;
  const deps: RunnerDeps = {
    ...defaultRunnerDeps,
    createClient: (options) => {
      const client = defaultRunnerDeps.createClient(options);
      return {
        send: (plan, record, signal) => {
          live.add(record);
          return client.send(plan, record, signal).then(() => {
            live.delete(record);
            endedEvents += record.chunkCount;
          });
        },
        listModels: (signal) => client.listModels(signal),
        close: () => client.close(),
      };
    },
  };
  const finished = runProfile({
    profile: resolveProfileText(holdStreamsProfile(url, streams), 'client-bench-hold.yaml'),
    target: { baseUrl: url, apiKey: null },
    control: { interrupt: new AbortController().signal, tickIntervalMs: 100 },
    env: {
      clock: systemClock,
      cpuProbe: () => process.cpuUsage(),
      version: inferbenchVersion(),
      deps,
      events: {
        onTick: (tick) => {
          inFlight = tick.snapshot.inFlight;
        },
      },
    },
  });
  return {
    inFlight: () => inFlight,
    events: () => {
      let events = endedEvents;
      for (const record of live) events += record.chunkCount;
      return events;
    },
    reads: () => inferbenchReads,
    finished,
  };
}

/** The sink holding `streams` streams from `url`. */
export function holdSink(url: string, streams: number): Holder {
  const sink = new SinkClient(url, streams, comparatorBody(true));
  const finished = sink
    .hold(streams)
    .then(() => sink.close())
    .then(() => null);
  return {
    inFlight: () => sink.counts.inFlight,
    events: () => sink.counts.events,
    reads: () => sink.counts.reads,
    finished,
  };
}

/** What one window over held streams measured. */
export interface HoldWindow {
  readonly wallMs: number;
  readonly cpuUs: number;
  readonly events: number;
  readonly reads: number;
  readonly inFlight: number;
  /** Event-loop delay in the window, as the runner's harness monitor takes it (10 ms resolution subtracted). */
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
  readonly memory: MemoryReading;
}

const LOOP_RESOLUTION_MS = 10;

/** A measurement window over a holder. */
export class HoldWindowMeter {
  readonly #holder: Holder;
  readonly #startMs = performance.now();
  readonly #startCpu = process.cpuUsage();
  readonly #startEvents: number;
  readonly #startReads: number;
  readonly #loop: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });

  constructor(holder: Holder) {
    this.#holder = holder;
    this.#startEvents = holder.events();
    this.#startReads = holder.reads();
    this.#loop.enable();
  }

  /** Ends the window; `gc`: collect garbage before taking memory (live memory, not garbage). */
  async end(gc: boolean): Promise<HoldWindow> {
    const cpu = process.cpuUsage(this.#startCpu);
    const wallMs = performance.now() - this.#startMs;
    const events = this.#holder.events() - this.#startEvents;
    const reads = this.#holder.reads() - this.#startReads;
    this.#loop.disable();
    const delayMs = (ns: number): number => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
    const window = {
      wallMs,
      cpuUs: cpu.user + cpu.system,
      events,
      reads,
      inFlight: this.#holder.inFlight(),
      loopDelayP99Ms: this.#loop.count > 0 ? delayMs(this.#loop.percentile(99)) : 0,
      loopDelayMaxMs: this.#loop.count > 0 ? delayMs(this.#loop.max) : 0,
    };
    return { ...window, memory: gc ? await settledMemory() : memoryNow(false) };
  }
}

/** Memory of the client process at one moment. */
export interface MemoryReading {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /**
   * Physical memory of V8's young generation (new space). With --max-semi-space-size=64 it swings by tens
   * of megabytes with the allocation rate, whatever is held: per-stream memory leaves it out.
   */
  readonly youngBytes: number;
}

/**
 * Memory after a full collection, a pause and another (node --expose-gc): native memory that objects
 * freed by the first is released by then, so two readings differ by what is held, not by when the
 * allocator got round to returning pages.
 */
export async function settledMemory(): Promise<MemoryReading> {
  memoryNow(true);
  await new Promise((resolve) => setTimeout(resolve, 250));
  return memoryNow(true);
}

/** RSS, heap in use and the young generation, after a full collection when asked (node --expose-gc). */
export function memoryNow(gc: boolean): MemoryReading {
  if (gc) (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  let youngBytes = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === 'new_space' || space.space_name === 'new_large_object_space') {
      youngBytes += space.physical_space_size;
    }
  }
  return { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed, youngBytes };
}
