/**
 * time_info under queueing, held against a client that is not busy: 300 requests (100 per tier) written
 * at once to the built-in dedicated endpoint (48 slots) queue for about two seconds, and for every one
 * of them the server's total_time must account for all but a few milliseconds of what the client
 * measured from its write to the last byte. Regression: the emulator started the clock when the request
 * entered the engine, after it had waited behind the parsing, validation and planning of every request
 * read before it; under a burst of 300 that left hundreds of ms out of total_time, which a run reports
 * as client overhead (e2e - total_time) that does not exist.
 * @module-tag timing
 */
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TimeInfo } from '../../../src/protocol/chat.js';
import { createEmulator, type Emulator } from '../../../src/emulator/emulator.js';
import { type BurstAnswer, type BurstRequest, sendBurst } from './queued-streams-client.js';

const ENDPOINT = 'ep-large-70b-dedicated';
const TIERS = ['priority', 'default', 'flex'] as const;
const PER_TIER = 100;
/** 24 tokens at the endpoint's 80 tokens/s: ~0.4 s a request, so 300 of them queue ~2 s on 48 slots. */
const ANSWER_TOKENS = 24;
/** A prompt of some 600 tokens: tokenizing and planning it is the per-request work the others wait behind. */
const PROMPT = Array.from({ length: 300 }, (_, i) => `measure ${i}`).join(' ');
/**
 * e2e - total_time at the 99th percentile, in ms, on a machine that lets the process run: what remains
 * is a read of the answer by an idle client and, for the last requests of the burst, the reads of the
 * requests ahead of it (tens of µs each). The bug this guards against left 100-1,000 ms out. Measured on
 * 2026-11-28 on the idle 2-core machine, alone: p50 37-44 ms and p99 48-58 ms, the same at 26bd19a and
 * after it; with 40 two fresh clones' `npm test` failed it (p99 52 and 75 ms, in runs whose garbage
 * collection was short, so the tolerance got little from it). A p50 of tens of ms is more than the reads
 * above explain: not yet understood.
 */
const OVERHEAD_P99_MS = 60;
/** A p99 wait for a CPU taken as this many times the mean one (scheduling delays have a long tail). */
const CLIENT_WAKE_UPS_AT_P99 = 5;

/**
 * Time the emulator's thread (this process's main thread) spent runnable but not running (Linux
 * schedstat, ms; 0 where there is none). No server can see time in which it does not run, so what
 * the machine took from the emulator's thread while requests could wait unread (waiting for a CPU, or
 * stopped by the garbage collector, whose helper threads wait for CPUs too), and a p99 wake-up of the
 * client's thread (CLIENT_WAKE_UPS_AT_P99 of its mean), are added to the tolerance: on a quiet machine
 * that is a few ms and the test is as strict as OVERHEAD_P99_MS; on an overloaded one (a load average of
 * 15 on 2 cores gives each thread a small share) it stays green.
 */
function runQueueWaitMs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6 || 0;
  } catch {
    return 0;
  }
}

let emulator: Emulator;

beforeAll(async () => {
  emulator = await createEmulator();
});

afterAll(async () => {
  await emulator.close();
});

interface Outcome {
  readonly tier: (typeof TIERS)[number];
  readonly stream: boolean;
  readonly info: TimeInfo;
  readonly overheadMs: number;
}

function timeInfoOf(answer: BurstAnswer): TimeInfo {
  expect(answer.raw.startsWith('HTTP/1.1 200 ')).toBe(true);
  const matches = [...answer.raw.matchAll(/"time_info":(\{[^}]*\})/g)];
  expect(matches).toHaveLength(1);
  return JSON.parse(matches[0]![1]!) as TimeInfo;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Resolves once the emulator has accepted `count` connections (the kernel completes handshakes first). */
async function accepted(count: number): Promise<void> {
  const open = () =>
    new Promise<number>((resolve, reject) =>
      emulator.server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
    );
  while ((await open()) < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

function micros(seconds: number): number {
  return Math.round(seconds * 1e6);
}

describe('time_info under queueing', () => {
  it('300 queued requests across the tiers: e2e - total_time stays within a few ms for every one', async () => {
    const requests: BurstRequest[] = [];
    const meta: { tier: (typeof TIERS)[number]; stream: boolean }[] = [];
    // Tiers interleaved, so each tier has requests read early and late; every tenth one not streamed.
    for (let i = 0; i < PER_TIER; i++) {
      for (const tier of TIERS) {
        const stream = i % 10 !== 9;
        meta.push({ tier, stream });
        requests.push({
          body: {
            model: ENDPOINT,
            service_tier: tier,
            stream,
            messages: [{ role: 'user', content: `${i} ${PROMPT}` }],
            max_completion_tokens: ANSWER_TOKENS,
            temperature: 0,
          },
        });
      }
    }
    // The emulator's wait for a CPU counts while requests can wait unread: until it has read the last one.
    let waitBeforeMs = 0;
    let waitAtLastReadMs = Number.NaN;
    let read = 0;
    let gcMs = 0;
    const gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (read < requests.length) gcMs += entry.duration;
    });
    gc.observe({ entryTypes: ['gc'] });
    const onRequest = () => {
      if (++read === requests.length) waitAtLastReadMs = runQueueWaitMs();
    };
    const { answers, clientWakeUpMs } = await sendBurst(emulator.url, requests, async () => {
      // Accepting 300 connections is not what is measured: every one is accepted before the first write.
      await accepted(requests.length);
      waitBeforeMs = runQueueWaitMs();
      emulator.server.on('request', onRequest);
    });
    emulator.server.off('request', onRequest);
    gc.disconnect();
    const emulatorWaitMs = waitAtLastReadMs - waitBeforeMs + gcMs;
    const machineMs = emulatorWaitMs + CLIENT_WAKE_UPS_AT_P99 * clientWakeUpMs;
    const outcomes: Outcome[] = answers.map((answer, index) => {
      const info = timeInfoOf(answer);
      return { ...meta[index]!, info, overheadMs: answer.e2eMs - info.total_time * 1000 };
    });

    for (const { info } of outcomes) {
      // The parts add up to the total to the microsecond.
      expect(micros(info.queue_time) + micros(info.prompt_time) + micros(info.completion_time)).toBe(
        micros(info.total_time),
      );
    }
    // The requests did queue, priority ahead of flex.
    const medianQueueS = (tier: string) =>
      percentile(
        outcomes.filter((o) => o.tier === tier).map((o) => o.info.queue_time),
        0.5,
      );
    expect(medianQueueS('priority')).toBeLessThan(medianQueueS('flex'));
    expect(Math.max(...outcomes.map((o) => o.info.queue_time))).toBeGreaterThan(1);

    const overheads = outcomes.map((o) => o.overheadMs);
    const summary =
      `e2e - total_time: min ${Math.min(...overheads).toFixed(2)} p50 ${percentile(overheads, 0.5).toFixed(2)} ` +
      `p99 ${percentile(overheads, 0.99).toFixed(2)} max ${Math.max(...overheads).toFixed(2)} ms; ` +
      `not running: emulator ${emulatorWaitMs.toFixed(0)} ms (${gcMs.toFixed(0)} in GC), client ${clientWakeUpMs.toFixed(1)} ms a wake-up`;
    const toleranceMs = OVERHEAD_P99_MS + machineMs;
    // The server reads the request after the client wrote it and writes its last byte before the client
    // reads it, on the same monotonic clock: total_time can never exceed e2e (beyond µs rounding).
    expect(Math.min(...overheads), summary).toBeGreaterThanOrEqual(-0.01);
    expect(percentile(overheads, 0.99), summary).toBeLessThan(toleranceMs);
    for (const stream of [true, false]) {
      const some = outcomes.filter((o) => o.stream === stream).map((o) => o.overheadMs);
      expect(percentile(some, 0.99), `${stream ? 'streamed' : 'whole-body'} answers; ${summary}`).toBeLessThan(
        toleranceMs,
      );
    }
    console.info(summary);
  });
});
