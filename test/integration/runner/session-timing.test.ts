/**
 * When a session's later turns start and end, through the real runner and client against a recording
 * server on 127.0.0.1: a later turn is launched on the clock the client stamps with (the one injected
 * clock, a manual one here, that the runner hands to the client), and, having no schedule to be late
 * against, is left out of the group's schedule_lag_ms and the harness's; with stages shorter than the
 * duration, turns stop when the stages end, as the closed loop does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/client/request-record.js';
import type { RecordedValues } from '../../../src/metrics/request-values.js';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { runProfile } from '../../../src/runner/run-profile.js';
import { type Clock, ManualClock, systemClock } from '../../../src/util/clock.js';
import {
  CONVERSATION_MODEL,
  type ConversationServer,
  startConversationServer,
} from '../../helpers/conversation-server.js';

let server: ConversationServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function run(yaml: string, clock: Clock) {
  server = await startConversationServer();
  const profile = resolveProfileText(`name: t\nscenarios:\n${yaml}`, 't.yaml');
  const seen: { record: RequestRecord; lagMs: number }[] = [];
  const result = await runProfile({
    profile,
    target: { baseUrl: server.url, apiKey: null },
    control: { interrupt: new AbortController().signal },
    env: {
      clock,
      cpuProbe: null,
      version: 'test',
      events: {
        onRecord: (record: RequestRecord, _group, values: RecordedValues) =>
          seen.push({ record: { ...record }, lagMs: values.schedule_lag_ms }),
      },
    },
  });
  return { result, seen };
}

describe("a session's later turns", () => {
  it('are launched on the client clock and left out of schedule lag', async () => {
    // A manual schedule clock far from performance.now(): a later turn stamped with it would be 10^4 s off.
    const { result, seen } = await run(
      `  - name: chat
    models: [${CONVERSATION_MODEL}]
    load: { mode: concurrency, concurrency: 2 }
    requests: 2
    prompt: { input_tokens: 10 }
    session: { turns: 3, think_time: 0s, user_tokens: 5 }
`,
      new ManualClock(10_000_000),
    );
    expect(seen).toHaveLength(6);
    const later = seen.filter(({ record }) => record.labels?.turn !== '1');
    expect(later).toHaveLength(4);
    for (const { record, lagMs } of later) {
      expect(record.errorClass).toBeNull();
      // Launched just before its send, on the same clock (1 s: generous for a loaded machine).
      expect(record.sentUs - record.launchUs).toBeGreaterThanOrEqual(0);
      expect(record.sentUs - record.launchUs).toBeLessThan(1_000_000);
      expect(lagMs).toBeNaN();
    }
    // The group's schedule lag counts the sessions' first requests only.
    expect(result.groups[0]?.metrics.schedule_lag_ms?.count).toBe(2);
    expect(result.harness.schedule_lag_ms.max).toBeLessThan(1000);
  }, 30_000);

  it('stop when the stages end, however long the duration', async () => {
    const started = performance.now();
    const { seen } = await run(
      `  - name: chat
    models: [${CONVERSATION_MODEL}]
    load: { mode: concurrency, stages: [{ duration: 1s, concurrency: 2 }] }
    duration: 20s
    prompt: { input_tokens: 10 }
    session: { turns: 1000, think_time: 50ms, user_tokens: 5 }
`,
      systemClock,
    );
    const tookMs = performance.now() - started;
    const arrived = server!.arrivedMs;
    expect(arrived.length).toBeGreaterThan(2);
    // Stages end at 1 s; the bug ran turns for the whole 20 s duration.
    expect(Math.max(...arrived) - Math.min(...arrived)).toBeLessThan(5_000);
    expect(tookMs).toBeLessThan(12_000);
    expect(seen.length).toBe(arrived.length);
  }, 40_000);
});
