/**
 * The arrival clock: reads handled in one poll batch share the batch's start time, however long the
 * callbacks before them took; a later batch gets a new time. Real sockets on 127.0.0.1.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { arrivalUs } from '../../../src/util/arrival-clock.js';
import { nowUs, systemClock } from '../../../src/util/clock.js';
import { busyWaitMs } from '../../helpers/busy-wait.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let server: Server | null = null;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

/** A server and `count` client sockets connected to it; returns the server side of each. */
async function connectedPairs(count: number): Promise<Socket[]> {
  const accepted: Socket[] = [];
  server = createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  for (let i = 0; i < count; i++) {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  }
  while (accepted.length < count) await sleep(1);
  return accepted;
}

describe('arrivalUs', () => {
  it('gives every read of one poll batch the time the batch began, however long the callbacks before took', async () => {
    const serverSides = await connectedPairs(4);
    const stamps: number[] = [];
    const handledAt: number[] = [];
    for (const socket of serverSides) {
      socket.on('data', () => {
        stamps.push(arrivalUs(systemClock));
        handledAt.push(nowUs());
        busyWaitMs(3);
      });
    }
    // Written while the loop is held, so all four are ready when it polls next: one batch.
    for (const socket of sockets) socket.write('x');
    busyWaitMs(20);
    while (stamps.length < 4) await sleep(1);
    expect(new Set(stamps).size).toBe(1);
    // The last callback ran ~9 ms after the first, yet its data is stamped with the batch's start.
    expect((handledAt[3] as number) - (stamps[3] as number)).toBeGreaterThanOrEqual(8_000);
  });

  it('starts a new batch after the loop has turned', async () => {
    const serverSides = await connectedPairs(1);
    const stamps: number[] = [];
    serverSides[0]?.on('data', () => stamps.push(arrivalUs(systemClock)));
    sockets[0]?.write('a');
    while (stamps.length < 1) await sleep(1);
    await sleep(5);
    sockets[0]?.write('b');
    while (stamps.length < 2) await sleep(1);
    expect((stamps[1] as number) - (stamps[0] as number)).toBeGreaterThanOrEqual(4_000);
  });

  it('outside I/O callbacks, a new turn never reuses an old stamp', async () => {
    const first = arrivalUs(systemClock);
    await sleep(3);
    const second = arrivalUs(systemClock);
    expect(second - first).toBeGreaterThanOrEqual(2_000);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(arrivalUs(systemClock)).toBeGreaterThanOrEqual(second);
  });
});
