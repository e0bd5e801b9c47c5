/**
 * Where latencies start: open loop at the scheduled arrival (client lateness is in every latency), closed
 * loop at the socket write (the client's path to the socket is schedule lag, not the server's latency).
 * The real runner and client against the known-timing server on 127.0.0.1; records as the runner hands
 * them to its sinks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKnownTimingServer, type KnownTimingServer } from '../../../src/bench/known-timing-server.js';
import type { RequestRecord } from '../../../src/client/request-record.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { runProfile } from '../../../src/runner/run-profile.js';
import { systemClock } from '../../../src/util/clock.js';

let server: KnownTimingServer;
beforeAll(async () => {
  server = await startKnownTimingServer({ ttftMs: 20, itlMs: 2, tokens: 4, model: 'known-timing' });
});
afterAll(async () => {
  await server.close();
});

async function records(load: string): Promise<RequestRecord[]> {
  const profile = resolveProfileText(
    `name: start
scenarios:
  - name: s
    models: [known-timing]
    load: ${load}
    requests: 12
    request: { max_completion_tokens: 4 }
    prompt: { input_tokens: 16 }
`,
    'start.yaml',
  );
  const seen: RequestRecord[] = [];
  await runProfile({
    profile,
    target: { baseUrl: server.url, apiKey: null },
    control: { interrupt: new AbortController().signal },
    env: {
      clock: systemClock,
      cpuProbe: null,
      version: 'test',
      events: { onRecord: (record) => seen.push({ ...record }) },
    },
  });
  return seen;
}

describe('the start of every latency', () => {
  it('closed loop: the socket write; the launch is before it and the gap is schedule lag', async () => {
    const seen = await records('{ mode: concurrency, concurrency: 3 }');
    expect(seen).toHaveLength(12);
    for (const record of seen) {
      expect(record.errorClass).toBeNull();
      expect(record.latencyStartUs).toBe(record.sentUs);
      expect(record.launchUs).toBeLessThanOrEqual(record.sentUs);
      // The server's 20 ms to the first token, measured from the write.
      expect(record.firstTokenUs - record.latencyStartUs).toBeGreaterThanOrEqual(19_500);
    }
  });

  it('open loop: the scheduled arrival, even when the request left later', async () => {
    const seen = await records('{ mode: rate, rate: 200, arrival: constant }');
    expect(seen).toHaveLength(12);
    const launches = seen.map((record) => record.launchUs).sort((a, b) => a - b);
    for (const record of seen) {
      expect(record.errorClass).toBeNull();
      expect(record.latencyStartUs).toBe(record.launchUs);
      expect(record.sentUs).toBeGreaterThanOrEqual(record.launchUs);
    }
    // Scheduled arrivals are 5 ms apart whatever the client did.
    for (let i = 1; i < launches.length; i++)
      expect((launches[i] as number) - (launches[i - 1] as number)).toBeCloseTo(5_000, -1);
  });
});
