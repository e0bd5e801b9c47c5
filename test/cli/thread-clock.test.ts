/**
 * A worker thread's clock after cli/thread-clock.ts aligned it: a time it reads between a message from the
 * main thread and its answer lies between the main thread's readings when it sent and when it got the
 * answer (causality), for many round trips. Unaligned, a worker's performance.now() was measured from
 * +0.19 to -0.99 ms off the main thread's (the origins differ by chance), often more than a round trip.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import { monotonicAnchorMs } from '../../src/cli/thread-clock.js';
import { nowUs } from '../../src/util/clock.js';

const dist = (path: string): string => pathToFileURL(resolve(import.meta.dirname, '..', '..', 'dist', path)).href;

const WORKER = `
const { parentPort, workerData } = await import('node:worker_threads');
const { alignWithMainThread } = await import(${JSON.stringify(dist('cli/thread-clock.js'))});
const { nowUs } = await import(${JSON.stringify(dist('util/clock.js'))});
alignWithMainThread(workerData.anchor);
parentPort.on('message', () => parentPort.postMessage(nowUs()));
parentPort.postMessage('ready');
`;

async function roundTrips(count: number): Promise<{ before: number; worker: number; after: number }[]> {
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER)}`), {
    workerData: { anchor: monotonicAnchorMs() },
  });
  try {
    await new Promise((done) => worker.once('message', done));
    const trips: { before: number; worker: number; after: number }[] = [];
    for (let i = 0; i < count; i++) {
      const before = nowUs();
      const answer = new Promise<number>((done) => worker.once('message', done));
      worker.postMessage('now');
      const at = await answer;
      trips.push({ before, worker: at, after: nowUs() });
    }
    return trips;
  } finally {
    await worker.terminate();
  }
}

it('puts a worker thread on the main thread time line', async () => {
  for (const trip of await roundTrips(50)) {
    // 2 µs for the rounding of two clocks to whole microseconds.
    expect(trip.worker).toBeGreaterThanOrEqual(trip.before - 2);
    expect(trip.worker).toBeLessThanOrEqual(trip.after + 2);
  }
});
