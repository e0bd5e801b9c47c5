/**
 * A thread that sleeps until a target time with microsecond precision and then wakes the main event loop.
 *
 * Why: Node timers count whole milliseconds and fire after their delay, typically 0.5-1.5 ms past a
 * target, and in open loop every latency runs from the scheduled arrival, so that lateness would be in
 * every TTFT and E2E. Spinning the event loop until the target is precise but burns a core the server
 * under test may need. A worker thread blocked in Atomics.wait (a futex with a timeout, precise to tens
 * of µs) costs nothing while it sleeps; its postMessage wakes the main loop at once (an eventfd write).
 *
 * One thread serves the whole process, armed with one target at a time (precise-wake.ts multiplexes).
 * Targets cross threads as `performance.timeOrigin + performance.now()`: each thread's monotonic clock
 * from its own start, anchored to the Unix epoch at that start, so the two threads agree to a few µs
 * (measured: 1-13 µs apart) without either reading process.hrtime. The worker is unref'd: callers keep
 * the process alive with their own fallback timers.
 */
import { Worker } from 'node:worker_threads';

/** control[0]: sequence number, bumped on every change; control[1]: state. */
const SEQ = 0;
const STATE = 1;
const IDLE = 0;
const ARMED = 1;
const CLOSED = 2;
/**
 * The thread never sleeps longer than this at once: a thread blocked in Atomics.wait cannot be terminated,
 * and the process waits for its threads when it exits, so each wake-up is a chance to be stopped.
 */
const MAX_SLEEP_MS = 50;

/**
 * Runs in the worker: waits for the armed target, posts its sequence number. Evaluated code is CommonJS
 * or an ES module depending on the process's flags (--input-type), so it uses neither require nor import.
 */
const WORKER_SOURCE = [
  "const { workerData, parentPort } = process.getBuiltinModule('node:worker_threads');",
  'const control = new Int32Array(workerData.buffer, 0, 2);',
  'const target = new Float64Array(workerData.buffer, 8, 1);',
  'const nowMs = () => performance.timeOrigin + performance.now();',
  'let firedSeq = -1;',
  'for (;;) {',
  `  const seq = Atomics.load(control, ${SEQ});`,
  `  const state = Atomics.load(control, ${STATE});`,
  `  if (state === ${CLOSED}) break;`,
  `  if (state !== ${ARMED} || seq === firedSeq) { Atomics.wait(control, ${SEQ}, seq, ${MAX_SLEEP_MS}); continue; }`,
  '  const remainingMs = target[0] - nowMs();',
  `  if (remainingMs > 0) { Atomics.wait(control, ${SEQ}, seq, Math.min(remainingMs, ${MAX_SLEEP_MS})); continue; }`,
  '  firedSeq = seq;',
  '  parentPort.postMessage(seq);',
  '}',
].join('\n');

export class WakeThread {
  readonly #worker: Worker;
  readonly #control: Int32Array;
  readonly #target: Float64Array;
  /** This thread's performance.now() to the time base shared with the worker. */
  readonly #offsetMs = performance.timeOrigin;
  #armedSeq = -1;
  #onWake: () => void = () => undefined;
  #failed = false;

  /** `onFailure`: the thread died (it cannot be armed any more); callers' own timers take over. */
  constructor(onFailure: (error: Error) => void) {
    const buffer = new SharedArrayBuffer(16);
    this.#control = new Int32Array(buffer, 0, 2);
    this.#target = new Float64Array(buffer, 8, 1);
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { buffer } });
    this.#worker.on('message', (seq: number) => {
      if (seq === this.#armedSeq) {
        this.#armedSeq = -1;
        this.#onWake();
      }
    });
    this.#worker.on('error', (error: Error) => {
      this.#failed = true;
      onFailure(error);
    });
    // After the listeners: adding a 'message' listener refs the worker's port again.
    this.#worker.unref();
  }

  get failed(): boolean {
    return this.#failed;
  }

  /** Calls `onWake` (once) at `targetMs` on the performance.now() scale; replaces any armed target. */
  arm(targetMs: number, onWake: () => void): void {
    this.#onWake = onWake;
    this.#target[0] = targetMs + this.#offsetMs;
    Atomics.store(this.#control, STATE, ARMED);
    this.#armedSeq = Atomics.add(this.#control, SEQ, 1) + 1;
    Atomics.notify(this.#control, SEQ);
  }

  disarm(): void {
    this.#armedSeq = -1;
    Atomics.store(this.#control, STATE, IDLE);
    Atomics.add(this.#control, SEQ, 1);
    Atomics.notify(this.#control, SEQ);
  }

  async close(): Promise<void> {
    this.#armedSeq = -1;
    Atomics.store(this.#control, STATE, CLOSED);
    Atomics.add(this.#control, SEQ, 1);
    Atomics.notify(this.#control, SEQ);
    await this.#worker.terminate();
  }
}
