/**
 * Trace replay end to end: the real runner, schedule and client against a recording server on 127.0.0.1.
 * Requests arrive at the trace's timestamps divided by time_scale (checked against the earliest-arriving
 * request's lateness, within 40 ms), carry exactly their record's prompt and answer lengths, and their
 * latencies start at the scheduled time (one schedule_lag_ms sample per record). A record dropped at
 * max_concurrency does not shift the lengths of the records after it, and shards together replay the
 * trace once.
 * @module-tag timing
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/protocol/chat.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { runProfile } from '../../../src/runner/run-profile.js';
import type { RunResult } from '../../../src/runner/run-profile.js';
import type { ShardSpec } from '../../../src/schedule/shard.js';
import { systemClock } from '../../../src/util/clock.js';
import { countTokens } from '../../../src/util/tokenizer.js';
import {
  startTraceRecordingServer,
  TRACE_MODEL,
  type TraceRecordingServer,
} from '../../helpers/trace-recording-server.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-trace-run-'));
let server: TraceRecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface TraceRecord {
  readonly timestamp: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
}

/** Writes a trace whose records have distinct output lengths (100 + i), so each request names its record. */
function writeTrace(name: string, timestampsMs: readonly number[]): TraceRecord[] {
  const records = timestampsMs.map((timestamp, i) => ({
    timestamp: 5000 + timestamp,
    input_tokens: 3 + ((i * 37) % 200),
    output_tokens: 100 + i,
  }));
  writeFileSync(join(dir, name), records.map((record) => JSON.stringify(record)).join('\n'));
  return records;
}

function run(trace: string, load: string, shard: ShardSpec | null = null): Promise<RunResult> {
  const profile = resolveProfileText(
    `name: trace\nscenarios:\n  - name: replay\n    models: [${TRACE_MODEL}]\n    load: { mode: trace, path: ${trace}${load} }\n    request: { stream: false }\n    graceful_stop: 5s\n`,
    join(dir, 'profile.yaml'),
  );
  return runProfile({
    profile,
    target: { baseUrl: server!.url, apiKey: null },
    control: { interrupt: new AbortController().signal, shard },
    env: { clock: systemClock, cpuProbe: null, version: 'test' },
  });
}

const userTokens = (body: Record<string, unknown>): number =>
  countTokens(String((body.messages as ChatMessage[]).find((m) => m.role === 'user')?.content ?? ''));

/** The record a request carries, by its distinct max_completion_tokens. */
const recordOf = (body: Record<string, unknown>): number => (body.max_completion_tokens as number) - 100;

describe('trace replay against a recording server', () => {
  it('sends every record at its scaled timestamp with its exact lengths; latencies start at the schedule', async () => {
    server = await startTraceRecordingServer();
    // Bursty: simultaneous arrivals, a dense burst, gaps; 2.6 s of trace replayed at x2 in 1.3 s. The first
    // record comes 0.5 s (replayed) before the others: the first requests of a process pay its cold start
    // (connections, compilation: ~100 ms measured on a loaded machine), which is schedule lag, not the
    // schedule's timing, and is checked apart.
    const times = [
      0, 1000, 1000, 1020, 1025, 1030, 1200, 1210, 1220, 1230, 1240, 1250, 1600, 1601, 1602, 1900, 2000, 2300, 2500,
      2600,
    ];
    const records = writeTrace('bursty.jsonl', times);
    const result = await run('bursty.jsonl', ', time_scale: 2');

    const arrivals = server.arrivals;
    expect(arrivals.map((a) => recordOf(a.body)).sort((a, b) => a - b)).toEqual(records.map((_, i) => i));
    for (const arrival of arrivals) {
      const record = records[recordOf(arrival.body)]!;
      expect(userTokens(arrival.body)).toBe(record.input_tokens);
    }
    // Offsets from the schedule's start: lateness of each arrival beyond the least late one.
    const late = arrivals
      .filter((a) => recordOf(a.body) > 0)
      .map((a) => a.arrivedMs - (records[recordOf(a.body)]!.timestamp - 5000) / 2);
    const least = Math.min(...late);
    for (const lateMs of late) expect(lateMs - least).toBeLessThan(40);
    const coldStart = arrivals.find((a) => recordOf(a.body) === 0)!.arrivedMs;
    expect(coldStart - least).toBeLessThan(500);

    const group = result.groups[0]!;
    expect(group.requests).toMatchObject({ ok: records.length, failed: 0, dropped: 0 });
    expect(group.metrics.schedule_lag_ms?.count).toBe(records.length);
  });

  it('a record dropped at max_concurrency keeps its number: later requests carry their own lengths', async () => {
    server = await startTraceRecordingServer({ holdMs: 300 });
    const times = [0, 200, 400, 600, 800, 1000];
    const records = writeTrace('spaced.jsonl', times);
    const result = await run('spaced.jsonl', ', max_concurrency: 1');

    const group = result.groups[0]!;
    expect(group.requests.ok + group.requests.dropped).toBe(records.length);
    expect(group.requests.dropped).toBeGreaterThan(0);
    const first = server.arrivals[0]!.arrivedMs;
    for (const arrival of server.arrivals) {
      const index = recordOf(arrival.body);
      expect(userTokens(arrival.body)).toBe(records[index]!.input_tokens);
      // Arrivals are 200 ms apart: a request carrying another record's lengths would be off by >= 200 ms.
      expect(Math.abs(arrival.arrivedMs - first - times[index]!)).toBeLessThan(100);
    }
  });

  it('shards together replay every record once', async () => {
    server = await startTraceRecordingServer();
    const records = writeTrace('shards.jsonl', [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    const results = await Promise.all([
      run('shards.jsonl', '', { index: 1, count: 2 }),
      run('shards.jsonl', '', { index: 2, count: 2 }),
    ]);
    expect(results.map((r) => r.groups[0]!.requests.ok)).toEqual([6, 5]);
    expect(server.arrivals.map((a) => recordOf(a.body)).sort((a, b) => a - b)).toEqual(records.map((_, i) => i));
    for (const arrival of server.arrivals)
      expect(userTokens(arrival.body)).toBe(records[recordOf(arrival.body)]!.input_tokens);
  });
});
