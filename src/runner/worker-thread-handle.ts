/**
 * The coordinator's handle on one worker thread of `run --workers N`: starts the thread with its share,
 * and turns its messages into promises (ready, finished) and callbacks (events, status, idle scenarios).
 * A thread that fails before it is ready rejects `ready` with the worker's error; one that dies later
 * resolves `finished` as crashed, so the run keeps what the other workers measured.
 */
import { Worker } from 'node:worker_threads';
import { InferbenchError, type InferbenchErrorCode } from '../errors.js';
import type { HarnessHealth } from '../metrics/run-summary.js';
import type { ShardSpec } from '../schedule/shard.js';
import type { CoordinatorMessage, WorkerEvent, WorkerInit, WorkerMessage } from './worker-protocol.js';

export type ReadyMessage = Extract<WorkerMessage, { type: 'ready' }>;

/** How a worker's share ended: ran (complete or interrupted), or the thread died first. */
export type WorkerEnd =
  | { readonly kind: 'done'; readonly complete: boolean; readonly harness: HarnessHealth }
  | { readonly kind: 'crashed'; readonly reason: string };

export interface WorkerSinks {
  events(events: readonly WorkerEvent[]): void;
  idle(scenario: string, reason: string): void;
}

const KNOWN_CODES: ReadonlySet<string> = new Set<InferbenchErrorCode>([
  'BAD_USAGE',
  'BAD_PROFILE',
  'BAD_CONFIG',
  'BAD_RESULTS',
  'TARGET_UNREACHABLE',
  'TARGET_ERROR',
  'RUN_FAILED',
  'INTERNAL',
]);

export class WorkerThreadHandle {
  readonly index: number;
  readonly share: ShardSpec;
  readonly ready: Promise<ReadyMessage>;
  readonly finished: Promise<WorkerEnd>;
  /** The last status it sent: the scenario it runs and whether some group of it is warming up. */
  status: { scenario: string; warmup: boolean } | null = null;
  readonly #worker: Worker;

  constructor(script: URL, init: WorkerInit, sinks: WorkerSinks) {
    this.index = init.workerIndex;
    this.share = init.share;
    this.#worker = new Worker(script, { workerData: init });
    let markReady: (message: ReadyMessage) => void = () => undefined;
    let failReady: (error: Error) => void = () => undefined;
    let end: (outcome: WorkerEnd) => void = () => undefined;
    this.ready = new Promise<ReadyMessage>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    // A rejection nobody awaits yet (another worker failed first) must not crash the process.
    this.ready.catch(() => undefined);
    this.finished = new Promise<WorkerEnd>((resolve) => {
      end = resolve;
    });
    this.#worker.on('message', (message: WorkerMessage) => {
      switch (message.type) {
        case 'ready':
          return markReady(message);
        case 'events':
          return sinks.events(message.events);
        case 'status':
          this.status = { scenario: message.scenario, warmup: message.warmup };
          return;
        case 'idle':
          return sinks.idle(message.scenario, message.reason);
        case 'done':
          return end({ kind: 'done', complete: message.complete && !message.interrupted, harness: message.harness });
        case 'failed': {
          const code = KNOWN_CODES.has(message.code) ? (message.code as InferbenchErrorCode) : 'INTERNAL';
          const hint = message.hint === null ? {} : { hint: message.hint };
          failReady(new InferbenchError(code, message.message, hint));
          return end({ kind: 'crashed', reason: message.message });
        }
      }
    });
    let lastError = '';
    this.#worker.on('error', (error: Error) => {
      lastError = error.message;
    });
    this.#worker.on('exit', (code) => {
      const reason = lastError || `the thread exited with code ${code}`;
      failReady(new InferbenchError('INTERNAL', `worker ${this.index} stopped before it was ready: ${reason}`));
      end({ kind: 'crashed', reason });
    });
  }

  send(message: CoordinatorMessage): void {
    this.#worker.postMessage(message);
  }

  async stop(): Promise<void> {
    await this.#worker.terminate();
  }
}
