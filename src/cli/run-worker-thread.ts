/**
 * The entry module of a worker thread of `run --workers N` (started by runner/run-in-workers.ts): aligns
 * the thread's clock with the coordinator's, then runs its share (runner/worker-share.ts). Its CPU use is
 * its own event loop's utilisation: process.cpuUsage() would count every thread of the process.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { runWorkerShare } from '../runner/worker-share.js';
import type { WorkerInit } from '../runner/worker-protocol.js';
import { alignWithMainThread } from './thread-clock.js';

const init = workerData as WorkerInit;
if (parentPort === null) throw new Error('run-worker-thread.js runs only as a worker thread of `run --workers`');
alignWithMainThread(init.clockAnchorMs);
const threadBusy = () => {
  const busyUs = performance.eventLoopUtilization().active * 1000;
  return { user: busyUs, system: 0 };
};
await runWorkerShare(init, parentPort, threadBusy);
